#!/usr/bin/env bash
# The persistent fa3 forward merged (session 17): persistent where session 16/17's A/B showed it
# paying (D = 64, D = 128 causal; fa3_traits.h), packed varlen batches in both launches. One call:
# build HEAD, every fa3 forward and varlen test three ways (each tile's own choice, all per-tile,
# all persistent on 3 CTAs), the sanitizers on 3 CTAs, then perf_fwd's fa3 and cuDNN cases (the
# shipped choice against all per-tile) and configs/varlen.json. From the repository root with
# carry=[".carry"]:  bash results/h200/fa3_persistent_merge/call.sh
set -u
outdir=/tmp/pm; mkdir -p $outdir; budget=470; PACK=$OUT/persistent_merge.tgz
source scripts/h200/steps.sh
step build 170 sh -c "FA2BENCH_BUILD_DIR=/tmp/b scripts/h200/build_on_device.sh > $outdir/build.log 2>&1"
tail -n 1 $outdir/build.log
[ -x /tmp/b/fa2bench ] || { echo "no binary"; pack; exit 1; }
run_tests() {  # name env...
  local name=$1; shift
  ( env "$@" timeout 150 /tmp/b/tests/fa2bench_gpu_tests --gtest_filter='*Fa3Kernel*:*Fa3Fwd*:*Fa3Varlen*' \
      --gtest_brief=1 > $outdir/tests_$name.log 2>&1; echo "tests $name: exit $?" )
}
run_tests shipped &
run_tests per_tile FA2BENCH_FA3_PERSISTENT=0 &
run_tests persistent3 FA2BENCH_FA3_PERSISTENT=1 FA2BENCH_FA3_CTAS=3 &
wait
for v in shipped per_tile persistent3; do echo "$v: $(grep -E '^\[  (PASSED|FAILED)  \]|tests? ran' $outdir/tests_$v.log | tr '\n' ' ')"; done
pack
for tool in memcheck racecheck synccheck; do
  ( FA2BENCH_FA3_PERSISTENT=1 FA2BENCH_FA3_CTAS=3 SANITIZE_TOOLS=$tool \
      SANITIZE_FILTER='*Fa3KernelSweep*:*Fa3VarlenSweep.PackedMatches*' SANITIZE_CLASSES=small SANITIZE_JOBS=1 \
      SANITIZE_OUT=$outdir/sanitize_$tool timeout 150 scripts/sanitize.sh /tmp/b > $outdir/sanitize_$tool.log 2>&1
    echo "$tool: exit $?" ) &
done
wait; pkill -f compute-sanitizer
pack
f='^(fa3|cudnn)/(B32-H(32|16|8)-T512|B8-H(32|16|8)-T2048|B2-H16-T8192-D128)'
for v in shipped 0; do
  if [ $v = shipped ]; then e=""; else e="FA2BENCH_FA3_PERSISTENT=0"; fi
  env $e timeout 60 /tmp/b/fa2bench sweep --config configs/perf_fwd.json --target cuda --backends fa3,cudnn \
    --filter "$f" --out $outdir/p_$v --quiet > $outdir/p_$v.stdout 2>&1
  echo "perf $v: $?"
done
/tmp/b/fa2bench compare $outdir/p_0/results.json $outdir/p_shipped/results.json --format md > $outdir/compare_per_tile_vs_shipped.md 2>/dev/null
/tmp/b/fa2bench compare $outdir/p_shipped/results.json $outdir/p_shipped/results.json --pair fa3=cudnn --format md > $outdir/fa3_vs_cudnn.md 2>/dev/null
pack
timeout 60 /tmp/b/fa2bench sweep --config configs/varlen.json --target cuda --out $outdir/varlen --quiet > $outdir/varlen.stdout 2>&1
echo "varlen sweep: exit $?"; tail -n 14 $outdir/varlen.stdout
/tmp/b/fa2bench compare $outdir/varlen/results.json $outdir/varlen/results.json --pair fa3=cudnn --format md > $outdir/varlen_fa3_vs_cudnn.md 2>/dev/null
pack
echo "total: $(($(date +%s) - steps_start))s"
