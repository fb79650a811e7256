#!/usr/bin/env bash
# Session 19, call 3, at the commit with the fa3 backward v3 and the forward's new L2 sections and
# copy-engine stores: racecheck over the fa3 backward sweep (4 processes) and over the forward's
# per-tile launches; perf_fwd with fa3, fa2 and cudnn in one sweep (issue 17's acceptance run);
# perf_train's fa3 and cudnn cases at D = 64 and 128 in fwd_bwd with PyTorch flash and cuDNN SDPA
# on the same shapes (scripts/h200/training.sh).
# From the repository root with carry=[".carry"]:  bash results/h200/fa3_bwd_v3/call3.sh
set -u
outdir=/tmp/c3; mkdir -p $outdir; budget=575; PACK=$OUT/call3.tgz
source scripts/h200/steps.sh
build_limit=160 build_or_stop --target fa2bench fa2bench_gpu_tests
( SANITIZE_TOOLS=racecheck SANITIZE_FILTER='*Fa3BwdSweep*:Fa3Bwd.BshdLayout:Fa3Bwd.GroupedQueryHeads' \
    SANITIZE_CLASSES=small SANITIZE_JOBS=4 SANITIZE_OUT=$outdir/racecheck_bwd timeout 130 \
    scripts/sanitize.sh /tmp/b > $outdir/racecheck_bwd.log 2>&1
  echo "racecheck bwd: exit $?" ) &
( FA2BENCH_FA3_PERSISTENT=0 FA2BENCH_FA3_L2_SECTION=3 SANITIZE_TOOLS=racecheck SANITIZE_FILTER='*Fa3KernelSweep*' \
    SANITIZE_CLASSES=small SANITIZE_JOBS=2 SANITIZE_OUT=$outdir/racecheck_fwd_per_tile timeout 130 \
    scripts/sanitize.sh /tmp/b > $outdir/racecheck_fwd_per_tile.log 2>&1
  echo "racecheck fwd per tile: exit $?" ) &
wait; pkill -f compute-sanitizer
cat $outdir/racecheck_*/summary.txt 2>/dev/null
pack
step perf_fwd 110 /tmp/b/fa2bench sweep --config configs/perf_fwd.json --target cuda \
  --backends fa3,fa2,cudnn --out $outdir/perf_fwd --quiet > $outdir/perf_fwd.stdout 2>&1
for pair in fa3=cudnn fa3=fa2; do
  /tmp/b/fa2bench compare $outdir/perf_fwd/results.json $outdir/perf_fwd/results.json --pair $pair \
    --format md > $outdir/compare_${pair%%=*}_vs_${pair#*=}.md 2>/dev/null
  grep -A7 "Geometric mean" $outdir/compare_${pair%%=*}_vs_${pair#*=}.md | tail -4
done
pack
t=$(($(left) - 20))
if [ $t -gt 60 ]; then
  STAGES=perf PERF_FILTER='^(fa3|cudnn|torch-flash|torch-cudnn)/.*-D(64|128)/' PERF_TAG=fa3_v3 TORCH_BACKENDS=flash,cudnn \
    timeout $t scripts/h200/training.sh /tmp/b
  echo "training: exit $?"
  cp -r results/h200/training/perf_train_fa3_v3 $outdir/
  grep -E '^\| fa3 \| torch-flash' $outdir/perf_train_fa3_v3/compare_vs_torch.md | awk -F'|' '{print $4, $11}' | head -40
fi
pack
echo "total: $(($(date +%s) - steps_start))s"
