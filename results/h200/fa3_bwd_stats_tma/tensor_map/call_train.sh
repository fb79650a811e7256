#!/usr/bin/env bash
# Session 20, call 4 (the machine of call 3 still warm, its candidate build /tmp/bb kept):
# perf_train's bf16 grid in fwd_bwd for fa3 (the statistics by tensor map) and cudnn in one sweep.
set -u
outdir=/tmp/tt; mkdir -p $outdir; budget=${BUDGET:-200}; PACK=$OUT/stats_tensor_map_train.tgz
source scripts/h200/steps.sh
[ -x /tmp/bb/fa2bench ] || { echo "no candidate build kept"; exit 1; }
timeout $(($(left) - 15)) /tmp/bb/fa2bench sweep --config configs/perf_train.json --target cuda \
  --backends fa3,cudnn --filter '/bf16/' --out $outdir/perf_train_bf16 --quiet > $outdir/sweep.stdout 2>&1
echo "sweep: exit $?"
/tmp/bb/fa2bench compare $outdir/perf_train_bf16/results.json $outdir/perf_train_bf16/results.json \
  --pair fa3=cudnn --format md > $outdir/compare_fa3_vs_cudnn.md 2>&1; echo "compare: exit $?"
tail -n 8 $outdir/compare_fa3_vs_cudnn.md
pack
