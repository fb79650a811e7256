#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Times the fa2 backward under other tile tables (tuning exploration, device only). Each
# argument "D Bm Bn warps SdP_M KV_N Q_M [stages v4]" rewrites the Fa2BwdTraits<D> line of
# kernels/fa2/fa2_bwd_traits.h, rebuilds only that head dim's two backward units in BUILD
# (default /tmp/b; the header's old timestamp is put back so the other units, whose code did
# not change, are not rebuilt), prints their registers and stack, and runs the disabled
# Fa2BwdBench harness on that head dim's shapes. Leaves the last table in the tree: run it on a
# copy.
set -uo pipefail
build=${BUILD:-/tmp/b}
traits=kernels/fa2/fa2_bwd_traits.h
for v in "$@"; do
  set -- $v
  d=$1
  shift
  fields=$(echo "$@" | sed 's/ /, /g')
  stamp=$(stat -c %Y "$traits")
  sed -i -E "s/^(template <> struct Fa2BwdTraits<$d> +: Fa2BwdTraitsBase<$d, +)[^>]*>/\1$fields>/" "$traits"
  grep "Fa2BwdTraits<$d>" "$traits"
  objs=$(cd "$build" && find . -name "fa2_bwd_*_d$d.cu.o" | sed 's|^\./||')
  (cd "$build" && rm -f $objs)
  ninja -C "$build" $objs > /tmp/rebuild.log 2>&1
  built=$?
  touch -d "@$stamp" "$traits"
  [ $built = 0 ] || { tail -20 /tmp/rebuild.log; continue; }
  cmake --build "$build" -j "$(nproc)" --target fa2bench_gpu_tests > /tmp/rebuild.log 2>&1 || { tail -20 /tmp/rebuild.log; continue; }
  obj=$(find "$build" -name "fa2_bwd_bf16_d$d.cu.o" | head -1)
  cuobjdump --dump-resource-usage "$obj" | grep -o "REG:[0-9]* STACK:[0-9]*" | tr '\n' ' ' |
    sed "s/^/[$v] d$d bf16 /"; echo
  FA2BENCH_BENCH_DIMS=$d "$build"/tests/fa2bench_gpu_tests --gtest_also_run_disabled_tests \
    --gtest_filter='*Fa2BwdBench*' 2>&1 | grep FA2BWDBENCH | sed "s/^/[$v] /"
done
