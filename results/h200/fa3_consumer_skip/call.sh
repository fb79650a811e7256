#!/usr/bin/env bash
# Prepared in session 20 (not run): the fa3 forward's consumers skip the key tiles their rows
# cannot see (consumer_skip.patch). Each consumer warpgroup owns 64 rows of a query tile, and every
# one of them visited all of the tile's key tiles. Under the causal mask a tile's first rows stop
# short of its last key tiles, and in the last query tile rows past T_q see none. At T = 512 with
# D = 64's 192-row tiles, 7 of the 27 (warpgroup, key tile) steps see no key. With D = 256's 80-key
# tiles, 4 of 36 do. A skipped step keeps its turn and frees its stages once they hold the tile,
# but issues no GEMM and no softmax, so the other warpgroups get the tensor cores and the MUFU.
# Two builds (HEAD: fa2bench; patched: fa2bench and the GPU tests); the candidate's fa3 forward
# tests three ways (shipped; persistent on 3 CTAs in L2 sections of 2; per tile in sections of 3);
# racecheck, synccheck and memcheck over the forward sweep persistent on 3 CTAs, where the skipping
# consumers walk many tiles; then perf_fwd's fa3 cases, HEAD and patched interleaved twice, and
# cuDNN once on the same cases for the ratio.
# Session 21: PATCH picks the candidate (consumer_skip_uniform.patch: the same skipping, with the
# warpgroup index broadcast from lane 0 so the step index stays warp-uniform), and ACCEPT=1 adds
# issue 17's acceptance sweep (perf_fwd.json with fa3, fa2 and cudnn) on the candidate's build.
# From the repository root with carry=[".carry"]:  bash results/h200/fa3_consumer_skip/call.sh
set -u
outdir=/tmp/cs; mkdir -p $outdir; budget=${BUDGET:-540}; PACK=$OUT/consumer_skip.tgz
source scripts/h200/steps.sh
k=results/h200/fa3_consumer_skip
build_ab ${PATCH:-$k/consumer_skip.patch}
f='*Fa3Kernel*:*Fa3Fwd*:*Fa3Varlen*'
( timeout 100 /tmp/bb/tests/fa2bench_gpu_tests --gtest_filter="$f" --gtest_brief=1 > $outdir/tests_shipped.log 2>&1
  FA2BENCH_FA3_PERSISTENT=1 FA2BENCH_FA3_CTAS=3 FA2BENCH_FA3_L2_SECTION=2 timeout 100 \
    /tmp/bb/tests/fa2bench_gpu_tests --gtest_filter="$f" --gtest_brief=1 > $outdir/tests_persistent3.log 2>&1
  FA2BENCH_FA3_PERSISTENT=0 FA2BENCH_FA3_L2_SECTION=3 timeout 100 \
    /tmp/bb/tests/fa2bench_gpu_tests --gtest_filter="$f" --gtest_brief=1 > $outdir/tests_per_tile.log 2>&1 ) &
for tool in racecheck synccheck memcheck; do
  jobs=1; [ $tool = racecheck ] && jobs=4
  ( cd /tmp/exp && FA2BENCH_FA3_PERSISTENT=1 FA2BENCH_FA3_CTAS=3 FA2BENCH_FA3_L2_SECTION=2 \
      SANITIZE_TOOLS=$tool SANITIZE_FILTER='*Fa3KernelSweep*' SANITIZE_CLASSES=small \
      SANITIZE_JOBS=$jobs SANITIZE_OUT=$outdir/$tool timeout 150 scripts/sanitize.sh /tmp/bb \
      > $outdir/$tool.log 2>&1
    echo "$tool: exit $?" ) &
done
wait; pkill -f compute-sanitizer
for t in shipped persistent3 per_tile; do
  echo "tests $t: $(grep -E '^\[  (PASSED|FAILED)  \]' $outdir/tests_$t.log | tr '\n' ' ')"
done
grep -h -m 3 -B2 -A8 'Failure' $outdir/tests_*.log | head -30
cat $outdir/*/summary.txt 2>/dev/null
pack
if grep -q '^\[  FAILED' $outdir/tests_*.log || ! grep -q '^\[  PASSED' $outdir/tests_shipped.log; then
  echo "the candidate fails its tests: no timing"; exit 1
fi
fb='^(fa3|cudnn)/(B32-H(32|16|8)-T512|B8-H(32|16|8)-T2048|B2-H(32|16|8)-T8192)-'
m="--set measure.warmup=2 --set measure.min_samples=5 --set measure.max_samples=12"
ab_rounds 2 $outdir/fwd --config configs/perf_fwd.json --target cuda --backends fa3 --filter "$fb" $m
[ "$(left)" -gt 40 ] && timeout 40 /tmp/ba/fa2bench sweep --config configs/perf_fwd.json --target cuda \
  --backends cudnn --filter "$fb" $m --out $outdir/fwd/cudnn --quiet > /dev/null 2>&1
python3 results/h200/fa3_bwd_v3/ab_table.py $outdir/fwd | tee $outdir/fwd_ab.md
pack
if [ "${ACCEPT:-0}" = 1 ] && [ "$(left)" -gt 100 ]; then
  step perf_fwd 100 /tmp/bb/fa2bench sweep --config configs/perf_fwd.json --target cuda \
    --backends fa3,fa2,cudnn --out $outdir/perf_fwd --quiet > $outdir/perf_fwd.stdout 2>&1
  for pair in fa3=cudnn fa3=fa2; do
    /tmp/bb/fa2bench compare $outdir/perf_fwd/results.json $outdir/perf_fwd/results.json \
      --pair $pair --format md > $outdir/compare_${pair/=/_vs_}.md 2>&1
  done
  tail -n 12 $outdir/compare_fa3_vs_cudnn.md
  pack
fi
echo "total: $(($(date +%s) - steps_start))s"
