#!/usr/bin/env bash
# Session 18, call 5 (the session's last device time): D = 64 causal on short keys moves to the
# 128-row two-consumer persistent tile (call 4's tune: +9% at T = 512). Builds, runs the fa3
# forward/varlen tests as shipped and persistent on 3 CTAs, memcheck/racecheck/synccheck over
# the fa3 forward sweep (persistent, 3 CTAs, sections of 2), perf_fwd's T = 512 and 2048 cases
# with fa3 and cudnn, the seed configs with fa3 beside their backends, and, with time left,
# Nsight Compute of fa3 and cuDNN at B32-H16-T512-D128 bf16 non-causal.
# From the repository root with carry=[".carry"]:  bash results/h200/fa3_two_q/call5.sh
set -u
outdir=/tmp/c5; mkdir -p $outdir; budget=440; PACK=$OUT/call5.tgz
source scripts/h200/steps.sh
build_or_stop --target fa2bench fa2bench_gpu_tests
f3t='*Fa3Kernel*:*Fa3Fwd*:*Fa3Varlen*'
( timeout 60 /tmp/b/tests/fa2bench_gpu_tests --gtest_filter="$f3t" --gtest_brief=1 > $outdir/tests_shipped.log 2>&1 ) &
( FA2BENCH_FA3_PERSISTENT=1 FA2BENCH_FA3_CTAS=3 FA2BENCH_FA3_L2_SECTION=2 timeout 60 \
    /tmp/b/tests/fa2bench_gpu_tests --gtest_filter="$f3t" --gtest_brief=1 > $outdir/tests_persistent3.log 2>&1 ) &
wait
for v in shipped persistent3; do echo "tests $v: $(grep -E '^\[  (PASSED|FAILED)  \]' $outdir/tests_$v.log | tr '\n' ' ')"; done
if grep -q '^\[  FAILED' $outdir/tests_*.log || [ "$(grep -l '^\[  PASSED' $outdir/tests_*.log | wc -l)" != 2 ]; then
  echo "fa3 tests fail: no timing"; pack; exit 1
fi
for tool in memcheck racecheck synccheck; do
  ( FA2BENCH_FA3_PERSISTENT=1 FA2BENCH_FA3_CTAS=3 FA2BENCH_FA3_L2_SECTION=2 SANITIZE_TOOLS=$tool \
      SANITIZE_FILTER='*Fa3KernelSweep*' SANITIZE_CLASSES=small SANITIZE_JOBS=1 \
      SANITIZE_OUT=$outdir/sanitize_$tool timeout 120 scripts/sanitize.sh /tmp/b > $outdir/sanitize_$tool.log 2>&1
    echo "$tool: exit $?" ) &
done
wait; pkill -f compute-sanitizer
pack
step perf 40 /tmp/b/fa2bench sweep --config configs/perf_fwd.json --target cuda --backends fa3,cudnn \
  --filter '^(fa3|cudnn)/(B32-H(32|16|8)-T512|B8-H(32|16|8)-T2048)-' --out $outdir/perf_short --quiet \
  > $outdir/perf_short.stdout 2>&1
/tmp/b/fa2bench compare $outdir/perf_short/results.json $outdir/perf_short/results.json --pair fa3=cudnn \
  --format md > $outdir/perf_short_fa3_vs_cudnn.md 2>/dev/null
grep -E "D64/(bf16|fp16)/causal" $outdir/perf_short_fa3_vs_cudnn.md | head -4
step seeds 150 scripts/h200/seeds_with.sh fa3 /tmp/b $outdir/seeds_with_fa3
t=$(($(left) - 15))
if [ $t -gt 70 ]; then
  c=B32-H16-T512-D128/bf16/full
  timeout $((t / 2)) scripts/h200/ncu_case.sh /tmp/b/fa2bench configs/perf_fwd.json fa3 fa3_fwd_kernel "$c" $outdir/ncu fa3_t512_d128_full
  timeout $((t / 2)) scripts/h200/ncu_case.sh /tmp/b/fa2bench configs/perf_fwd.json cudnn 'flash|sdpa|fprop|fmha' "$c" $outdir/ncu cudnn_t512_d128_full
fi
pack
echo "total: $(($(date +%s) - steps_start))s"
