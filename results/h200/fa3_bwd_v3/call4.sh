#!/usr/bin/env bash
# Session 19, call 4: call 3's racecheck found 200 WAR hazards in the fa3 backward v3, each a
# consumer's read of a stage's LSE/D_i against the producer warp's cp.async of a later block into
# the same stage, ordered only through the empty/full mbarriers (which racecheck does not follow).
# stats_by_consumers.patch: the first consumer warpgroup copies LSE/D_i itself, one block ahead,
# after the consumers' named barrier that ends every read of the stage's last block. HEAD (A,
# fa2bench) and patched (B, fa2bench and the GPU tests); the candidate's fa3 backward tests and
# racecheck, memcheck and synccheck over its sweep; then perf_train's fa3 cases at D = 64 and 128
# in bwd mode, A and B interleaved.
# From the repository root with carry=[".carry"]:  bash results/h200/fa3_bwd_v3/call4.sh
set -u
outdir=/tmp/c4; mkdir -p $outdir; budget=${BUDGET:-380}; PACK=$OUT/call4.tgz
source scripts/h200/steps.sh
k=results/h200/fa3_bwd_v3
patched_tree $k/stats_by_consumers.patch
# NO_A=1: the candidate alone (little device time left): its timing is then set beside call 2's.
[ -z "${NO_A:-}" ] && ( FA2BENCH_BUILD_DIR=/tmp/ba timeout 200 scripts/h200/build_on_device.sh --target fa2bench > $outdir/build_a.log 2>&1; echo "build_a: $?" ) &
( cd /tmp/exp && FA2BENCH_BUILD_DIR=/tmp/bb timeout 200 scripts/h200/build_on_device.sh --target fa2bench fa2bench_gpu_tests > $outdir/build_b.log 2>&1; echo "build_b: $?" ) &
wait
echo "builds done at $(($(date +%s) - steps_start))s"
[ -x /tmp/bb/tests/fa2bench_gpu_tests ] || { echo "no tests binary"; tail -5 $outdir/build_b.log; pack; exit 1; }
( timeout 60 /tmp/bb/tests/fa2bench_gpu_tests --gtest_filter='*Fa3Bwd*' --gtest_brief=1 > $outdir/tests_bwd.log 2>&1 ) &
for tool in racecheck memcheck synccheck; do
  jobs=1; [ $tool = racecheck ] && jobs=4
  ( cd /tmp/exp && SANITIZE_TOOLS=$tool SANITIZE_FILTER='*Fa3BwdSweep*:Fa3Bwd.BshdLayout:Fa3Bwd.GroupedQueryHeads' \
      SANITIZE_CLASSES=small SANITIZE_JOBS=$jobs SANITIZE_OUT=$outdir/$tool timeout 120 \
      scripts/sanitize.sh /tmp/bb > $outdir/$tool.log 2>&1
    echo "$tool: exit $?" ) &
done
wait; pkill -f compute-sanitizer
echo "tests_bwd: $(grep -E '^\[  (PASSED|FAILED)  \]' $outdir/tests_bwd.log | tr '\n' ' ')"
grep -m 3 -B2 -A8 'Failure' $outdir/tests_bwd.log | head -30
cat $outdir/*/summary.txt 2>/dev/null
grep -h -m 4 -A3 'hazard detected' $outdir/racecheck/racecheck.*.log 2>/dev/null | head -16
pack
fb='^fa3/(B32-H(32|16)-T512|B8-H(32|16)-T2048|B2-H(32|16)-T8192)-.*/bf16/'
m="--set measure.warmup=2 --set measure.min_samples=5 --set measure.max_samples=12"
sides="a b"; [ -n "${NO_A:-}" ] && sides=b
if [ -x /tmp/bb/fa2bench ] && grep -q '^\[  PASSED' $outdir/tests_bwd.log && ! grep -q '^\[  FAILED' $outdir/tests_bwd.log; then
  for r in 1 2; do
    for v in $sides; do
      [ "$(left)" -gt 30 ] || break 2
      timeout 25 /tmp/b$v/fa2bench sweep --config configs/perf_train.json --target cuda --backends fa3 \
        --filter "$fb" --set grid.mode=bwd $m --out $outdir/bwd/${v}_$r --quiet > /dev/null 2>&1
      echo "bwd $v round $r: $? at $(($(date +%s) - steps_start))s"
    done
  done
  python3 $k/ab_table.py $outdir/bwd | tee $outdir/bwd_ab.md
fi
pack
echo "total: $(($(date +%s) - steps_start))s"
