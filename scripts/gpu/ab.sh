#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A/B timing of fa2 backward variants on the GPU machine, through the disabled Fa2BwdBench
# harness of fa2bench_gpu_tests. Sides run interleaved (A B A B ...) for ROUNDS rounds so that
# clock and thermal drift fall on all alike; bench_table.py then prints one line per shape with
# each side's median fwd+bwd and backward time and its ratio to the first side's.
#
#   ab.sh builds  A_TESTS B_TESTS OUT_DIR            two builds (base, candidate)
#   ab.sh env     TESTS VAR "V0 V1 ..." OUT_DIR      one experiment binary, variants chosen by an
#                                                    environment variable; each value's Fa2Bwd
#                                                    tests first (concurrently: the float64
#                                                    references are CPU-bound)
#   ab.sh defines BUILD "LABEL|DEFINES|DIMS" ...     recompile the bf16 backward units of DIMS
#                                                    with DEFINES (preprocessor switches of an
#                                                    experiment patch), relink, time; a last
#                                                    "base||64,128,256" puts the defaults back
#   ab.sh traits  BUILD "D Bm Bn warps SdP_M KV_N Q_M [stages v4]" ...
#                                                    rewrite Fa2BwdTraits<D> in
#                                                    kernels/fa2/fa2_bwd_traits.h, rebuild that
#                                                    head dim's units, time (leaves the last
#                                                    table in the tree: run it on a copy)
# Environment: ROUNDS (3), FA2BENCH_BENCH_DIMS (64,128,256). The fa3 forward's A/B of two builds
# on sweeps is steps.sh's ab_fa3_vs_cudnn.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rounds=${ROUNDS:-3}
bench() {  # SIDE_LABEL BINARY [env assignments...]: one harness run, lines tagged by side
  local side=$1 bin=$2
  shift 2
  env "$@" "$bin" --gtest_also_run_disabled_tests --gtest_filter='*Fa2BwdBench*' 2>&1 |
    grep FA2BWDBENCH | sed "s/^/$side /"
}
mode=${1:-}
shift || true
case "$mode" in
  builds)
    a=$1 b=$2 out=$3
    mkdir -p "$out"; : > "$out/ab_runs.log"
    for _ in $(seq "$rounds"); do
      bench A "$a" >> "$out/ab_runs.log"
      bench B "$b" >> "$out/ab_runs.log"
    done
    python3 "$here/bench_table.py" "$out/ab_runs.log" "A B" | tee "$out/ab.txt" ;;
  env)
    bin=$1 var=$2 values=$3 out=$4
    mkdir -p "$out"
    for v in $values; do
      env "$var=$v" "$bin" --gtest_filter='*Fa2Bwd*:-*Bench*' > "$out/tests_$v.log" 2>&1 &
    done
    wait
    for v in $values; do
      echo "tests $var=$v: $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/tests_$v.log" | tr '\n' ' ')"
    done
    : > "$out/ab_runs.log"
    for _ in $(seq "$rounds"); do
      for v in $values; do bench "$v" "$bin" "$var=$v" >> "$out/ab_runs.log"; done
    done
    python3 "$here/bench_table.py" "$out/ab_runs.log" "$values" | tee "$out/ab.txt" ;;
  defines)
    build=$1
    shift
    for v in "$@"; do
      IFS='|' read -r label defs dims <<< "$v"
      for d in ${dims//,/ }; do
        obj=$(cd "$build" && find . -name "fa2_bwd_bf16_d$d.cu.o" | sed 's|^\./||' | head -1)
        cmd=$(ninja -C "$build" -t commands "$obj" | tail -1)
        (cd "$build" && eval "$cmd $defs -Xptxas -v" > "/tmp/exp_${label}_$d.log" 2>&1 &&
          grep -o "Used [0-9]* registers" "/tmp/exp_${label}_$d.log" | sort | uniq -c |
          tr '\n' ' ' | sed "s/^/[$label] d$d bf16: /"; echo) &
      done
      wait
      ninja -C "$build" tests/fa2bench_gpu_tests > /tmp/exp_link.log 2>&1 ||
        { tail -5 /tmp/exp_link.log; continue; }
      bench "[$label]" "$build/tests/fa2bench_gpu_tests" "FA2BENCH_BENCH_DIMS=$dims"
    done ;;
  traits)
    build=$1
    shift
    traits=kernels/fa2/fa2_bwd_traits.h
    for v in "$@"; do
      set -- $v
      d=$1
      shift
      fields=$(echo "$@" | sed 's/ /, /g')
      # The header's old timestamp is put back, so the other head dims' units stay built.
      stamp=$(stat -c %Y "$traits")
      sed -i -E "s/^(template <> struct Fa2BwdTraits<$d> +: Fa2BwdTraitsBase<$d, +)[^>]*>/\1$fields>/" "$traits"
      grep "Fa2BwdTraits<$d>" "$traits"
      objs=$(cd "$build" && find . -name "fa2_bwd_*_d$d.cu.o" | sed 's|^\./||')
      (cd "$build" && rm -f $objs)
      ninja -C "$build" $objs > /tmp/rebuild.log 2>&1
      built=$?
      touch -d "@$stamp" "$traits"
      [ $built = 0 ] || { tail -20 /tmp/rebuild.log; continue; }
      cmake --build "$build" -j "$(nproc)" --target fa2bench_gpu_tests > /tmp/rebuild.log 2>&1 ||
        { tail -20 /tmp/rebuild.log; continue; }
      obj=$(find "$build" -name "fa2_bwd_bf16_d$d.cu.o" | head -1)
      cuobjdump --dump-resource-usage "$obj" | grep -o "REG:[0-9]* STACK:[0-9]*" | tr '\n' ' ' |
        sed "s/^/[$v] d$d bf16 /"; echo
      bench "[$v]" "$build/tests/fa2bench_gpu_tests" "FA2BENCH_BENCH_DIMS=$d"
    done ;;
  *)
    sed -n '3,24p' "$0" | sed 's/^# \{0,1\}//'
    exit 2 ;;
esac
