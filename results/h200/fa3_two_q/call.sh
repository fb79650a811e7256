#!/usr/bin/env bash
# Session 18, call 3: persistent fa3 CTAs with two Q buffers (the next tile's Q lands while the
# consumers still compute this one and stage its O), shipped for D = 64 and for D = 128 up to
# 2048 keys, aimed at T = 512 (0.71-0.85x cuDNN after the L2 order). Builds with the fa3 tuning
# variants (old and new tiles side by side), runs the fa3 forward/varlen tests three ways and
# the variants' tests on 3 persistent CTAs, tunes the T = 512 and 2048 bf16 cases, then
# perf_fwd with fa3 and cudnn in one sweep. From the repository root with carry=[".carry"]:
#   bash results/h200/fa3_two_q/call.sh
set -u
outdir=/tmp/c3; mkdir -p $outdir; budget=560; PACK=$OUT/two_q.tgz
source scripts/h200/steps.sh
export FA2BENCH_CMAKE_ARGS="-DFA2BENCH_DEV_KERNELS=ON -DFA2BENCH_DEV_ONLY=/fa3/"
step build 240 sh -c "FA2BENCH_BUILD_DIR=/tmp/b scripts/h200/build_on_device.sh --target fa2bench fa2bench_gpu_tests > $outdir/build.log 2>&1"
tail -n 1 $outdir/build.log
[ -x /tmp/b/fa2bench ] || { echo "no binary"; pack; exit 1; }
i=0
for envs in "" "FA2BENCH_FA3_PERSISTENT=0 FA2BENCH_FA3_L2_SECTION=3" \
            "FA2BENCH_FA3_PERSISTENT=1 FA2BENCH_FA3_CTAS=3 FA2BENCH_FA3_L2_SECTION=2"; do
  i=$((i + 1))
  step tests_$i 60 env $envs /tmp/b/tests/fa2bench_gpu_tests \
    --gtest_filter='*Fa3Kernel*:*Fa3Fwd*:*Fa3Varlen*' --gtest_brief=1 > $outdir/tests_$i.log 2>&1
  echo "tests ($envs): $(grep -E '^\[  (PASSED|FAILED)  \]' $outdir/tests_$i.log | tr '\n' ' ')"
done
step devtests 90 env FA2BENCH_FA3_CTAS=3 FA2BENCH_FA3_L2_SECTION=2 /tmp/b/tests/fa2bench_gpu_tests \
  --gtest_filter='*Fa3Dev*' --gtest_brief=1 > $outdir/devtests.log 2>&1
echo "dev variant tests: $(grep -E '^\[  (PASSED|FAILED)  \]' $outdir/devtests.log | tr '\n' ' ')"
grep -m 6 -B2 -A6 "Failure" $outdir/devtests.log | head -40
if grep -q '^\[  FAILED' $outdir/tests_*.log || [ "$(grep -l '^\[  PASSED' $outdir/tests_*.log | wc -l)" != 3 ]; then
  echo "fa3 tests fail: no timing"; pack; exit 1
fi
for w in T512-.*bf16 T2048-.*bf16; do
  n=tune_${w%%-*}
  step $n 100 /tmp/b/fa2bench tune --backend fa3 --config configs/perf_fwd.json --out $outdir/$n \
    --filter "$w" --set measure.warmup=2 --set measure.min_samples=5 --set measure.max_samples=10 \
    --overwrite --quiet > $outdir/$n.txt 2>&1
  sed -n '/^Winners/,$p' $outdir/$n.txt
done
step perf $(($(left) - 15)) /tmp/b/fa2bench sweep --config configs/perf_fwd.json --target cuda \
  --backends fa3,cudnn --out $outdir/perf_fwd --quiet > $outdir/perf_fwd.stdout 2>&1
/tmp/b/fa2bench compare $outdir/perf_fwd/results.json $outdir/perf_fwd/results.json --pair fa3=cudnn \
  --format md > $outdir/compare_fa3_vs_cudnn.md 2>/dev/null
grep -A7 "Geometric mean" $outdir/compare_fa3_vs_cudnn.md | tail -4
pack
echo "total: $(($(date +%s) - steps_start))s"
