#!/usr/bin/env bash
# Session 19, one call for two changes against HEAD (v3.patch):
# - the fa3 backward v3 (warp-specialised: a producer warp loads Q and dO by the copy engine and
#   LSE/D_i by cp.async into mbarrier stages; no CTA-wide barrier in the loop; dSᵀ
#   double-buffered);
# - the fa3 forward's L2 sections of 2 pairs (persistent causal grids keep half of L2) and the
#   copy-engine store of O in the short-key and D = 64 tiles (call 1's section sweep and tune).
# Two builds (HEAD: fa2bench; patched: fa2bench and the GPU tests), the candidate's fa3 tests
# (forward three ways, backward), the three sanitizers over the fa3 backward sweep and the
# persistent forward sweep, then HEAD and patched interleaved: perf_fwd's fa3 cases at T = 512,
# 2048, 8192 and perf_train's fa3 cases at D = 64, 128 in bwd mode (bf16); cudnn once each.
# From the repository root with carry=[".carry"]:  bash results/h200/fa3_bwd_v3/call.sh
set -u
outdir=/tmp/bv3; mkdir -p $outdir; budget=545; PACK=$OUT/bwd_v3.tgz
source scripts/h200/steps.sh
k=results/h200/fa3_bwd_v3
patched_tree $k/v3.patch
( FA2BENCH_BUILD_DIR=/tmp/ba timeout 220 scripts/h200/build_on_device.sh --target fa2bench > $outdir/build_a.log 2>&1; echo "build_a: $?" ) &
( cd /tmp/exp && FA2BENCH_BUILD_DIR=/tmp/bb timeout 230 scripts/h200/build_on_device.sh --target fa2bench fa2bench_gpu_tests > $outdir/build_b.log 2>&1; echo "build_b: $?" ) &
wait
echo "builds done at $(($(date +%s) - steps_start))s"
[ -x /tmp/ba/fa2bench ] && [ -x /tmp/bb/fa2bench ] || { echo "no binaries"; tail -5 $outdir/build_*.log; pack; exit 1; }
fwd='*Fa3Kernel*:*Fa3Fwd*:*Fa3Varlen*'
i=0
for envs in "" "FA2BENCH_FA3_PERSISTENT=0 FA2BENCH_FA3_L2_SECTION=3" \
            "FA2BENCH_FA3_PERSISTENT=1 FA2BENCH_FA3_CTAS=3 FA2BENCH_FA3_L2_SECTION=2"; do
  i=$((i + 1))
  ( env $envs timeout 80 /tmp/bb/tests/fa2bench_gpu_tests --gtest_filter="$fwd" --gtest_brief=1 \
      > $outdir/tests_fwd_$i.log 2>&1 ) &
done
( timeout 80 /tmp/bb/tests/fa2bench_gpu_tests --gtest_filter='*Fa3Bwd*' --gtest_brief=1 > $outdir/tests_bwd.log 2>&1 ) &
wait
for f in $outdir/tests_*.log; do echo "$(basename $f): $(grep -E '^\[  (PASSED|FAILED)  \]' $f | tr '\n' ' ')"; done
grep -h -m 3 -B2 -A8 'Failure' $outdir/tests_*.log | head -40
if grep -q '^\[  FAILED' $outdir/tests_*.log || [ "$(grep -l '^\[  PASSED' $outdir/tests_*.log | wc -l)" != 4 ]; then
  echo "the candidate fails its tests: no timing"; pack; exit 1
fi
pack
for tool in memcheck racecheck synccheck; do
  ( cd /tmp/exp && SANITIZE_TOOLS=$tool SANITIZE_FILTER='*Fa3BwdSweep*:Fa3Bwd.BshdLayout:Fa3Bwd.GroupedQueryHeads' \
      SANITIZE_CLASSES=small SANITIZE_JOBS=1 SANITIZE_OUT=$outdir/sanitize_bwd_$tool timeout 140 \
      scripts/sanitize.sh /tmp/bb > $outdir/sanitize_bwd_$tool.log 2>&1
    echo "bwd $tool: exit $?" ) &
  ( cd /tmp/exp && FA2BENCH_FA3_PERSISTENT=1 FA2BENCH_FA3_CTAS=3 FA2BENCH_FA3_L2_SECTION=2 \
      SANITIZE_TOOLS=$tool SANITIZE_FILTER='*Fa3KernelSweep*' SANITIZE_CLASSES=small SANITIZE_JOBS=1 \
      SANITIZE_OUT=$outdir/sanitize_fwd_$tool timeout 140 scripts/sanitize.sh /tmp/bb > $outdir/sanitize_fwd_$tool.log 2>&1
    echo "fwd $tool: exit $?" ) &
done
wait; pkill -f compute-sanitizer
cat $outdir/sanitize_*/summary.txt 2>/dev/null | head -30
pack
ff='^fa3/(B32-H(32|16|8)-T512|B8-H(32|16|8)-T2048|B2-H(32|16|8)-T8192)-.*/bf16/'
fb='^fa3/(B32-H(32|16)-T512|B8-H(32|16)-T2048|B2-H(32|16)-T8192)-.*/bf16/'
m="--set measure.warmup=2 --set measure.min_samples=5 --set measure.max_samples=12"
for r in 1 2; do
  for v in a b; do
    [ "$(left)" -gt 70 ] || break 2
    timeout 40 /tmp/b$v/fa2bench sweep --config configs/perf_fwd.json --target cuda --backends fa3 \
      --filter "$ff" $m --out $outdir/fwd/${v}_$r --quiet > /dev/null 2>&1
    echo "fwd $v round $r: $? at $(($(date +%s) - steps_start))s"
    timeout 50 /tmp/b$v/fa2bench sweep --config configs/perf_train.json --target cuda --backends fa3 \
      --filter "$fb" --set grid.mode=bwd $m --out $outdir/bwd/${v}_$r --quiet > /dev/null 2>&1
    echo "bwd $v round $r: $? at $(($(date +%s) - steps_start))s"
  done
done
pack
[ "$(left)" -gt 50 ] && timeout 30 /tmp/bb/fa2bench sweep --config configs/perf_fwd.json --target cuda \
  --backends cudnn --filter "${ff/fa3/cudnn}" $m --out $outdir/fwd/cudnn --quiet > /dev/null 2>&1
[ "$(left)" -gt 40 ] && timeout $(( $(left) - 20 )) /tmp/bb/fa2bench sweep --config configs/perf_train.json \
  --target cuda --backends cudnn --filter "${fb/fa3/cudnn}" --set grid.mode=bwd $m --out $outdir/bwd/cudnn \
  --quiet > /dev/null 2>&1
pack
python3 $k/ab_table.py $outdir/fwd | tee $outdir/fwd_ab.md
python3 $k/ab_table.py $outdir/bwd | tee $outdir/bwd_ab.md
pack
echo "total: $(($(date +%s) - steps_start))s"
