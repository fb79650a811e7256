#!/usr/bin/env bash
# Prepared in session 18 (not run): the fa3 producer loads Q before the first K and V where Q's
# buffer is long free (q_first.patch): a CTA's first tile, and every tile of a persistent CTA
# with two Q buffers. Today Q goes after K0 and V0, so the first S waits behind V0's copy as
# well; call 5's Nsight Compute at B32-H16-T512-D128 non-causal had the consumers' wait for Q
# as their largest barrier wait (the try-wait on Q's full barrier: 3.0% of all stall samples).
# Two builds of fa2bench and the GPU tests (HEAD and patched), the patched fa3 tests three ways,
# the three sanitizers on the patched forward (persistent, 3 CTAs, sections of 2; racecheck per
# tile too), then
# perf_fwd's fa3 cases at T = 512, 2048 and 8192 (bf16), HEAD and patched interleaved 3 times.
# From the repository root with carry=[".carry"]:  bash results/h200/fa3_q_first/call.sh
set -u
outdir=/tmp/qf; mkdir -p $outdir; budget=540; PACK=$OUT/q_first.tgz
source scripts/h200/steps.sh
k=results/h200/fa3_q_first
patched_tree $k/q_first.patch
step build_a 150 sh -c "FA2BENCH_BUILD_DIR=/tmp/ba scripts/h200/build_on_device.sh --target fa2bench > $outdir/build_a.log 2>&1"
step build_b 170 sh -c "cd /tmp/exp && FA2BENCH_BUILD_DIR=/tmp/bb scripts/h200/build_on_device.sh --target fa2bench fa2bench_gpu_tests > $outdir/build_b.log 2>&1"
[ -x /tmp/ba/fa2bench ] && [ -x /tmp/bb/fa2bench ] || { echo "no binaries"; pack; exit 1; }
f3t='*Fa3Kernel*:*Fa3Fwd*:*Fa3Varlen*'
i=0
for envs in "" "FA2BENCH_FA3_PERSISTENT=0 FA2BENCH_FA3_L2_SECTION=3" \
            "FA2BENCH_FA3_PERSISTENT=1 FA2BENCH_FA3_CTAS=3 FA2BENCH_FA3_L2_SECTION=2"; do
  i=$((i + 1))
  ( env $envs timeout 60 /tmp/bb/tests/fa2bench_gpu_tests --gtest_filter="$f3t" --gtest_brief=1 \
      > $outdir/tests_$i.log 2>&1 ) &
done
wait
for i in 1 2 3; do echo "tests $i: $(grep -E '^\[  (PASSED|FAILED)  \]' $outdir/tests_$i.log | tr '\n' ' ')"; done
if grep -q '^\[  FAILED' $outdir/tests_*.log || [ "$(grep -l '^\[  PASSED' $outdir/tests_*.log | wc -l)" != 3 ]; then
  echo "the candidate fails its tests: no timing"; pack; exit 1
fi
for tool in memcheck racecheck synccheck; do
  ( cd /tmp/exp && FA2BENCH_FA3_PERSISTENT=1 FA2BENCH_FA3_CTAS=3 FA2BENCH_FA3_L2_SECTION=2 \
      SANITIZE_TOOLS=$tool SANITIZE_FILTER='*Fa3KernelSweep*' SANITIZE_CLASSES=small SANITIZE_JOBS=1 \
      SANITIZE_OUT=$outdir/sanitize_$tool timeout 120 scripts/sanitize.sh /tmp/bb > $outdir/sanitize_$tool.log 2>&1
    echo "$tool: exit $?" ) &
done
( cd /tmp/exp && FA2BENCH_FA3_PERSISTENT=0 FA2BENCH_FA3_L2_SECTION=3 SANITIZE_TOOLS=racecheck \
    SANITIZE_FILTER='*Fa3KernelSweep*' SANITIZE_CLASSES=small SANITIZE_JOBS=1 \
    SANITIZE_OUT=$outdir/sanitize_racecheck_per_tile timeout 120 scripts/sanitize.sh /tmp/bb \
    > $outdir/sanitize_racecheck_per_tile.log 2>&1
  echo "racecheck (per tile): exit $?" ) &
wait; pkill -f compute-sanitizer
pack
f='^fa3/(B32-H(32|16|8)-T512|B8-H(32|16|8)-T2048|B2-H(32|16|8)-T8192)-.*/bf16/'
for r in 1 2 3; do
  for v in a b; do
    [ "$(left)" -gt 30 ] || break 2
    timeout 40 /tmp/b$v/fa2bench sweep --config configs/perf_fwd.json --target cuda --backends fa3 \
      --filter "$f" --out $outdir/ab/${v}_$r --quiet > /dev/null 2>&1
    echo "$v round $r: $?"
  done
done
pack
echo "total: $(($(date +%s) - steps_start))s"
