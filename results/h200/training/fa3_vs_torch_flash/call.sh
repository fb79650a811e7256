#!/usr/bin/env bash
# Prepared in session 23 (not run): issue 15's speed line asked of our Hopper kernel at every D.
# perf_train.json in fwd_bwd with fa3 (D = 256 now has fa3's backward, session 22) and PyTorch
# flash on the same shapes in one call, then compare --pair fa3=torch-flash. The last full-grid
# runs beside PyTorch flash are fa2's (perf_train_fa2_session12: 0.875-1.045x at T >= 2048; fa2's
# kernels have not changed since) and fa3's at D = 64/128 only (perf_train_fa3_v3: 1.32-1.77x).
# fa2 is left out to keep the call inside its limit: the float64 checks take most of a sweep's
# time (153 of 162 s for fa2's 48 cases in session 12).
# Prediction: fa3 1.3-1.8x at every case; D = 256 about 1.3x (fa3 / fa2 1.46-1.61x in session
# 22, fa2 / PyTorch flash 0.88-0.95x).
# From the repository root with carry=[".carry"]:  bash results/h200/training/fa3_vs_torch_flash/call.sh
# (session 24: PERF_FILTER='^(fa3|torch-flash)/.*-D256/' times D = 256 alone, after its dQ change).
set -u
outdir=/tmp/tf; mkdir -p $outdir; budget=${BUDGET:-560}; PACK=$OUT/fa3_vs_torch_flash.tgz
source scripts/h200/steps.sh
build_or_stop --target fa2bench
step perf_train $(($(left) - 10)) env TRAINING_ROOT=$outdir STAGES=perf TORCH_BACKENDS=flash \
  PERF_TAG=fa3_vs_torch_flash PERF_FILTER="${PERF_FILTER:-^(fa3|torch-flash)/}" scripts/h200/training.sh /tmp/b
# The eight lowest fa3 / PyTorch flash TFLOP/s ratios.
grep -E '^\| fa3 ' $outdir/perf_train_fa3_vs_torch_flash/compare_vs_torch.md |
  awk -F'|' '{print $4, $10}' | sort -k2,2 | head -n 8
pack
echo "total: $(($(date +%s) - steps_start))s"
