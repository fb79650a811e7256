#!/usr/bin/env bash
# Prepared in session 16 for a later device call (not run): the fa2 backward with its LSE / D_i
# staging spread over all warps (stats_spread.patch) against the shipped kernel. Two builds of
# the GPU tests, the candidate's *Fa2Bwd* tests, then scripts/h200/bwd_ab.sh (base A, candidate
# B, interleaved). Run from the repository root with carry=[".carry"]:
#   bash results/h200/training/kernel_bench/session16_stats_spread/call.sh
set -u
outdir=/tmp/cs; mkdir -p $outdir; budget=540; PACK=$OUT/stats_spread.tgz
source scripts/h200/steps.sh
k=results/h200/training/kernel_bench/session16_stats_spread
patched_tree $k/stats_spread.patch
step build_a 150 sh -c "FA2BENCH_BUILD_DIR=/tmp/ba scripts/h200/build_on_device.sh --target fa2bench_gpu_tests > $outdir/build_a.log 2>&1"
step build_b 150 sh -c "cd /tmp/exp && FA2BENCH_BUILD_DIR=/tmp/bb scripts/h200/build_on_device.sh --target fa2bench_gpu_tests > $outdir/build_b.log 2>&1"
step tests 90 sh -c "/tmp/bb/tests/fa2bench_gpu_tests --gtest_filter='*Fa2Bwd*:-*Bench*' --gtest_brief=1 > $outdir/tests_b.log 2>&1"
grep -E '^\[  (PASSED|FAILED)  \]|tests? ran' $outdir/tests_b.log
if grep -q FAILED $outdir/tests_b.log || ! grep -q PASSED $outdir/tests_b.log; then
  echo "the candidate fails its tests: no timing"; pack; exit 1
fi
step ab $(( $(left) - 20 )) sh -c "ROUNDS=3 scripts/h200/bwd_ab.sh /tmp/ba/tests/fa2bench_gpu_tests /tmp/bb/tests/fa2bench_gpu_tests $outdir/ab_runs.log > $outdir/ab.txt 2>&1"
cat $outdir/ab.txt
pack
echo "total: $(($(date +%s) - steps_start))s"
