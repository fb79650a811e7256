#!/usr/bin/env bash
# Session 20, call 3: the statistics by the copy engine, second form. Call 2 (session20_check/
# call2.sh) measured the plain bulk copy (cp.async.bulk) of LSE·log2(e) and D_i at +0.3-6.1% bwd
# against HEAD, but racecheck reported 200 WAR hazards: its reads of a stage's statistics against
# the producer's bulk copy of a later block into the same stage, ordered by the stage's empty and
# full mbarriers, which racecheck does not follow for that copy. Here the same rows come through a
# rank-2 tensor map (cp.async.bulk.tensor), the copy the forward uses for Q into buffers its
# consumers last wrote by thread (racecheck-clean since session 18).
# The working tree is the candidate; to_head.patch turns a copy of it back into HEAD.
# From the repository root with carry=[".carry"]:
#   bash results/h200/fa3_bwd_stats_tma/tensor_map/call.sh
set -u
outdir=/tmp/tm; mkdir -p $outdir; budget=${BUDGET:-500}; PACK=$OUT/stats_tensor_map.tgz
source scripts/h200/steps.sh
k=results/h200/fa3_bwd_stats_tma/tensor_map
patched_tree $k/to_head.patch
( cd /tmp/exp && FA2BENCH_BUILD_DIR=/tmp/ba timeout 220 scripts/h200/build_on_device.sh --target fa2bench > $outdir/build_a.log 2>&1; echo "build_a (HEAD): $?" ) &
( FA2BENCH_BUILD_DIR=/tmp/bb timeout 230 scripts/h200/build_on_device.sh --target fa2bench fa2bench_gpu_tests > $outdir/build_b.log 2>&1; echo "build_b (candidate): $?" ) &
wait
echo "builds done at $(($(date +%s) - steps_start))s"
[ -x /tmp/ba/fa2bench ] && [ -x /tmp/bb/tests/fa2bench_gpu_tests ] || { echo "no binaries"; tail -5 $outdir/build_*.log; pack; exit 1; }
( timeout 90 /tmp/bb/tests/fa2bench_gpu_tests --gtest_filter='*Fa3Bwd*:*GpuRunner*:*Training*' --gtest_brief=1 > $outdir/tests.log 2>&1 ) &
for tool in racecheck memcheck synccheck; do
  jobs=1; [ $tool = racecheck ] && jobs=4
  ( SANITIZE_TOOLS=$tool SANITIZE_FILTER='*Fa3BwdSweep*:Fa3Bwd.BshdLayout:Fa3Bwd.GroupedQueryHeads' \
      SANITIZE_CLASSES=small SANITIZE_JOBS=$jobs SANITIZE_OUT=$outdir/$tool timeout 130 \
      scripts/sanitize.sh /tmp/bb > $outdir/$tool.log 2>&1
    echo "$tool: exit $?" ) &
done
wait; pkill -f compute-sanitizer
echo "tests: $(grep -E '^\[  (PASSED|FAILED)  \]' $outdir/tests.log | tr '\n' ' ')"
grep -m 3 -B2 -A8 'Failure' $outdir/tests.log | head -30
cat $outdir/*/summary.txt 2>/dev/null
grep -h -m 2 -A3 'hazard detected' $outdir/racecheck/*.log 2>/dev/null | head -12
pack
if grep -q '^\[  FAILED' $outdir/tests.log || ! grep -q '^\[  PASSED' $outdir/tests.log; then
  echo "the candidate fails its tests: no timing"; exit 1
fi
fb='^fa3/(B32-H(32|16)-T512|B8-H(32|16)-T2048|B2-H(32|16)-T8192)-.*/bf16/'
m="--set measure.warmup=2 --set measure.min_samples=5 --set measure.max_samples=12"
for r in 1 2 3; do
  for v in a b; do
    [ "$(left)" -gt 25 ] || break 2
    timeout 25 /tmp/b$v/fa2bench sweep --config configs/perf_train.json --target cuda --backends fa3 \
      --filter "$fb" --set grid.mode=bwd $m --out $outdir/bwd/${v}_$r --quiet > /dev/null 2>&1
    echo "bwd $v round $r: $? at $(($(date +%s) - steps_start))s"
  done
done
python3 results/h200/fa3_bwd_v3/ab_table.py $outdir/bwd | tee $outdir/bwd_ab.md
pack
echo "total: $(($(date +%s) - steps_start))s"
