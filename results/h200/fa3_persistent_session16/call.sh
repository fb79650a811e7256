#!/usr/bin/env bash
# Session 16, call 3: the persistent fa3 forward (persistent.patch: session 15's, plus the fix for
# the hang its call 2 found, plus FA2BENCH_FA3_CTAS=N, a cap on the persistent grid so that the
# small test shapes walk several tiles per CTA) checked and timed against the same binary's
# per-tile launch, in one call. Run from the repository root with carry=[".carry"]:
#   [RACECHECK_S=100] bash results/h200/fa3_persistent_session16/call.sh [PATCH]
# PATCH defaults to this folder's persistent.patch (call 3); v3_prepared/ passes its own.
set -u
patch_file=${1:-results/h200/fa3_persistent_session16/persistent.patch}
outdir=/tmp/cp; mkdir -p $outdir; budget=520; PACK=$OUT/persistent.tgz
source scripts/h200/steps.sh
patched_tree $patch_file
step build 170 sh -c "cd /tmp/exp && FA2BENCH_BUILD_DIR=/tmp/b scripts/h200/build_on_device.sh > $outdir/build.log 2>&1"
tail -n 1 $outdir/build.log
# Correctness first: every fa3 forward test per-tile (v0), persistent (v1), and persistent on 3
# CTAs (v3: every CTA walks many tiles, the case the tests' small grids otherwise never reach).
run_tests() {  # name env...
  local name=$1; shift
  ( env "$@" timeout 150 /tmp/b/tests/fa2bench_gpu_tests --gtest_filter='*Fa3Kernel*:*Fa3Fwd*' \
      --gtest_brief=1 > $outdir/tests_$name.log 2>&1; echo "tests $name: exit $?" )
}
run_tests v0 FA2BENCH_FA3_PERSISTENT=0 &
run_tests v1 FA2BENCH_FA3_PERSISTENT=1 &
run_tests v3 FA2BENCH_FA3_PERSISTENT=1 FA2BENCH_FA3_CTAS=3 &
wait
for v in v0 v1 v3; do echo "$v: $(grep -E '^\[  (PASSED|FAILED)  \]|tests? ran' $outdir/tests_$v.log | tr '\n' ' ')"; done
if grep -q FAILED $outdir/tests_v1.log $outdir/tests_v3.log || ! grep -q PASSED $outdir/tests_v3.log; then
  echo "persistent fails its tests: no timing"; pack; exit 1
fi
pack
# The barrier logic under the sanitizers (small shapes), persistent on 3 CTAs.
for tool in memcheck racecheck synccheck; do
  ( FA2BENCH_FA3_PERSISTENT=1 FA2BENCH_FA3_CTAS=3 SANITIZE_TOOLS=$tool SANITIZE_FILTER='*Fa3KernelSweep*' \
      SANITIZE_CLASSES=small SANITIZE_JOBS=1 SANITIZE_OUT=$outdir/sanitize_$tool timeout ${RACECHECK_S:-100} \
      scripts/sanitize.sh /tmp/b > $outdir/sanitize_$tool.log 2>&1; echo "$tool: exit $?" ) &
done
wait; pkill -f compute-sanitizer
pack
# Timing: perf_fwd's fa3 and cudnn cases at T 512 and 2048 (issue 17's 0.9x line) and D128 8192,
# per-tile / persistent interleaved twice.
f='^(fa3|cudnn)/(B32-H(32|16|8)-T512|B8-H(32|16|8)-T2048|B2-H16-T8192-D128)'
for r in 1 2; do
  for v in 0 1; do
    FA2BENCH_FA3_PERSISTENT=$v timeout 60 /tmp/b/fa2bench sweep --config configs/perf_fwd.json \
      --target cuda --backends fa3,cudnn --filter "$f" --out $outdir/p${v}_$r --quiet > $outdir/p${v}_$r.stdout 2>&1
    echo "persistent=$v round $r: $?"
  done
  pack
done
/tmp/b/fa2bench compare $outdir/p0_1/results.json $outdir/p1_1/results.json --format md > $outdir/compare_r1.md 2>/dev/null
/tmp/b/fa2bench compare $outdir/p0_2/results.json $outdir/p1_2/results.json --format md > $outdir/compare_r2.md 2>/dev/null
/tmp/b/fa2bench compare $outdir/p1_2/results.json $outdir/p1_2/results.json --pair fa3=cudnn --format md > $outdir/fa3_vs_cudnn_persistent.md 2>/dev/null
pack
echo "total: $(($(date +%s) - steps_start))s"
