#!/usr/bin/env bash
# Session 18, call 4: the shipped choice after call 3 (two Q buffers; D = 256 short keys on the
# 80-key staged tile; the shared-memory opt-in per entry point and device), checked and measured
# in one call. A dev build (fa3 candidates), then, concurrently, every GPU test (ctest -L gpu,
# a process each) and compute-sanitizer memcheck/racecheck/synccheck over the fa3 forward and
# varlen sweeps (persistent on 3 CTAs in L2 sections of 2; memcheck also per tile in sections
# of 3); the tuning variants' tests in one process (shipped and variants side by side); a tune
# of the T = 512 bf16 cases; then perf_fwd with fa3, fa2 and cudnn in one sweep.
# From the repository root with carry=[".carry"]:  bash results/h200/fa3_two_q/final.sh
set -u
outdir=/tmp/c4; mkdir -p $outdir; budget=540; PACK=$OUT/final.tgz
source scripts/h200/steps.sh
export FA2BENCH_CMAKE_ARGS="-DFA2BENCH_DEV_KERNELS=ON -DFA2BENCH_DEV_ONLY=/fa3/"
step build 240 sh -c "FA2BENCH_BUILD_DIR=/tmp/b scripts/h200/build_on_device.sh --target fa2bench fa2bench_gpu_tests fa2bench_faulty > $outdir/build.log 2>&1"
tail -n 1 $outdir/build.log
[ -x /tmp/b/fa2bench ] || { echo "no binary"; pack; exit 1; }
s=$(date +%s)
( timeout 170 ctest --test-dir /tmp/b -L gpu -j 6 --output-on-failure > $outdir/ctest_gpu.log 2>&1
  echo "ctest -L gpu: exit $? in $(($(date +%s) - s))s" ) &
f3='*Fa3KernelSweep*:*Fa3VarlenSweep.PackedMatches*'
for tool in memcheck racecheck synccheck; do
  ( FA2BENCH_FA3_PERSISTENT=1 FA2BENCH_FA3_CTAS=3 FA2BENCH_FA3_L2_SECTION=2 SANITIZE_TOOLS=$tool \
      SANITIZE_FILTER="$f3" SANITIZE_CLASSES=small SANITIZE_JOBS=1 \
      SANITIZE_OUT=$outdir/sanitize_$tool timeout 170 scripts/sanitize.sh /tmp/b > $outdir/sanitize_$tool.log 2>&1
    echo "$tool (persistent, 3 CTAs, sections of 2): exit $?" ) &
done
( FA2BENCH_FA3_PERSISTENT=0 FA2BENCH_FA3_L2_SECTION=3 SANITIZE_TOOLS=memcheck SANITIZE_FILTER="$f3" \
    SANITIZE_CLASSES=small SANITIZE_JOBS=1 SANITIZE_OUT=$outdir/sanitize_memcheck_per_tile \
    timeout 170 scripts/sanitize.sh /tmp/b > $outdir/sanitize_memcheck_per_tile.log 2>&1
  echo "memcheck (per tile, sections of 3): exit $?" ) &
wait; pkill -f compute-sanitizer
grep -E "tests passed|tests failed" $outdir/ctest_gpu.log; grep -E "^\s+[0-9]+ - .*\(Failed|Timeout" $outdir/ctest_gpu.log | head
pack
step devtests 60 /tmp/b/tests/fa2bench_gpu_tests --gtest_filter='*Fa3Dev*' --gtest_brief=1 > $outdir/devtests.log 2>&1
echo "dev variant tests: $(grep -E '^\[  (PASSED|FAILED)  \]' $outdir/devtests.log | tr '\n' ' ')"
grep -m 4 -B2 -A6 "Failure" $outdir/devtests.log | head -30
step tune_T512 40 /tmp/b/fa2bench tune --backend fa3 --config configs/perf_fwd.json --out $outdir/tune_T512 \
  --filter 'T512-.*bf16' --set measure.warmup=2 --set measure.min_samples=5 --set measure.max_samples=10 \
  --overwrite --quiet > $outdir/tune_T512.txt 2>&1
sed -n '/^Winners/,$p' $outdir/tune_T512.txt
step perf $(($(left) - 15)) /tmp/b/fa2bench sweep --config configs/perf_fwd.json --target cuda \
  --backends fa3,fa2,cudnn --out $outdir/perf_fwd --quiet > $outdir/perf_fwd.stdout 2>&1
for pair in fa3=cudnn fa3=fa2; do
  /tmp/b/fa2bench compare $outdir/perf_fwd/results.json $outdir/perf_fwd/results.json --pair $pair \
    --format md > $outdir/compare_${pair%%=*}_vs_${pair#*=}.md 2>/dev/null
  grep -A7 "Geometric mean" $outdir/compare_${pair%%=*}_vs_${pair#*=}.md | tail -4
done
pack
echo "total: $(($(date +%s) - steps_start))s"
