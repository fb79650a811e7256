#!/usr/bin/env bash
# Prepared in session 23 (not run): issue 15's speed line, asked of both our kernels in one call.
# perf_train.json in fwd_bwd with fa2 and fa3 (D = 256 now has fa3's backward, session 22) and
# PyTorch flash on the same shapes, then compare --pair fa2=torch-flash --pair fa3=torch-flash.
# The last full-grid runs beside PyTorch flash are fa2's (perf_train_fa2_session12: 0.92-1.05x
# at T >= 2048) and fa3's at D = 64/128 (perf_train_fa3_v3: 1.33-1.77x); this one has every D.
# Prediction: fa2 as session 12 (within 2%); fa3 1.3-1.8x at every case, D = 256 about 1.3x
# (fa3 / fa2 1.48x there in session 22, fa2 / PyTorch flash 0.88-0.95x).
# From the repository root with carry=[".carry"]:  bash results/h200/training/fa3_vs_torch_flash/call.sh
set -u
outdir=/tmp/tf; mkdir -p $outdir; budget=${BUDGET:-560}; PACK=$OUT/fa3_vs_torch_flash.tgz
source scripts/h200/steps.sh
build_or_stop --target fa2bench
step perf_train $(($(left) - 10)) env TRAINING_ROOT=$outdir STAGES=perf TORCH_BACKENDS=flash PERF_TAG=fa3_vs_torch_flash \
  PERF_FILTER='^(fa2|fa3|torch-flash)/' scripts/h200/training.sh /tmp/b
grep -E '^\| fa[23] ' $outdir/perf_train_fa3_vs_torch_flash/compare_vs_torch.md | awk -F'|' '{print $2, $4, $11}' | sort -k3 | head -n 8
pack
echo "total: $(($(date +%s) - steps_start))s"
