#!/usr/bin/env bash
# Session 22: the fa3 forward's causal mask per consumer warpgroup (mask.patch). Nsight Compute at
# B32-H32-T512-D64 causal (fa3_short_causal/) showed fa3 issuing 22% more instructions than cuDNN
# (67.1 M against 54.9 M), 6.7 M of the difference in the mask's ISETP and FSEL: a tile was
# masked for every consumer when the tile's first row needed it (11 of the 20 steps at T = 512;
# per consumer, 8), and every masked element paid the T_k tail compare as well as the diagonal's.
# One build (the tree with the patch), little device time left: the fa3 forward tests shipped
# and persistent on 3 CTAs, racecheck and synccheck over the forward sweep persistent on 3 CTAs,
# then fa3 and cudnn over short_causal.json and perf_fwd's T = 512 and 2048 cases (the ratio is
# compared with the same sweeps' in fa3_short_causal/, HEAD's build, the call before).
# From the repository root with carry=[".carry"]:  bash results/h200/fa3_mask/call.sh
set -u
outdir=/tmp/mk; mkdir -p $outdir; budget=${BUDGET:-190}; PACK=$OUT/fa3_mask.tgz
source scripts/h200/steps.sh
step build 120 sh -c "FA2BENCH_BUILD_DIR=/tmp/bb scripts/h200/build_on_device.sh \
  --target fa2bench fa2bench_gpu_tests > $outdir/build.log 2>&1"
[ -x /tmp/bb/tests/fa2bench_gpu_tests ] || { echo "no binaries"; tail -n 5 $outdir/build.log; exit 1; }
f='*Fa3Kernel*:*Fa3Fwd*:*Fa3Varlen*'
( timeout 45 /tmp/bb/tests/fa2bench_gpu_tests --gtest_filter="$f" --gtest_brief=1 > $outdir/tests_shipped.log 2>&1
  FA2BENCH_FA3_PERSISTENT=1 FA2BENCH_FA3_CTAS=3 FA2BENCH_FA3_L2_SECTION=2 timeout 30 \
    /tmp/bb/tests/fa2bench_gpu_tests --gtest_filter="$f" --gtest_brief=1 > $outdir/tests_persistent3.log 2>&1 ) &
for tool in racecheck synccheck; do
  jobs=1; [ $tool = racecheck ] && jobs=4
  ( FA2BENCH_FA3_PERSISTENT=1 FA2BENCH_FA3_CTAS=3 FA2BENCH_FA3_L2_SECTION=2 \
      SANITIZE_TOOLS=$tool SANITIZE_FILTER='*Fa3KernelSweep*' SANITIZE_CLASSES=small \
      SANITIZE_JOBS=$jobs SANITIZE_OUT=$outdir/$tool timeout 60 scripts/sanitize.sh /tmp/bb \
      > $outdir/$tool.log 2>&1
    echo "$tool: exit $?" ) &
done
wait; pkill -f compute-sanitizer
for t in shipped persistent3; do
  echo "tests $t: $(grep -E '^\[  (PASSED|FAILED)  \]' $outdir/tests_$t.log | tr '\n' ' ')"
done
grep -h -m 3 -B2 -A8 'Failure' $outdir/tests_*.log | head -30
cat $outdir/*/summary.txt 2>/dev/null
pack
if grep -q '^\[  FAILED' $outdir/tests_*.log || ! grep -q '^\[  PASSED' $outdir/tests_shipped.log; then
  echo "the candidate fails its tests: no timing"; exit 1
fi
step short 20 /tmp/bb/fa2bench sweep --config results/h200/fa3_short_causal/short_causal.json \
  --target cuda --out $outdir/short --quiet > $outdir/short.stdout 2>&1
compare_pairs $outdir/short fa3=cudnn
grep -E '^\| fa3' $outdir/compare_fa3_vs_cudnn.md | cut -d'|' -f4,10,11
fb='^(fa3|cudnn)/(B32-H(32|16|8)-T512|B8-H(32|16|8)-T2048)-'
t=$(($(left) - 10))
[ $t -gt 10 ] && timeout $t /tmp/bb/fa2bench sweep --config configs/perf_fwd.json --target cuda \
  --filter "$fb" --backends fa3,cudnn --set measure.warmup=2 --set measure.min_samples=5 \
  --set measure.max_samples=12 --out $outdir/perf_fwd_short --quiet > /dev/null 2>&1
mv $outdir/compare_fa3_vs_cudnn.md $outdir/compare_short_fa3_vs_cudnn.md
compare_pairs $outdir/perf_fwd_short fa3=cudnn
grep -E '^\| fa3' $outdir/compare_fa3_vs_cudnn.md | cut -d'|' -f4,10,11
pack
echo "total: $(($(date +%s) - steps_start))s"
