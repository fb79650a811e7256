#!/usr/bin/env bash
# call.sh cut to what 527 s of device time allow (its first run was lost when the machine was
# taken back): the patched tree alone (patched in the device's copy, so the results name HEAD's
# commit, the tree of the commit that adds this script + tma_dq.patch), its fa3 backward tests and the three sanitizers,
# then perf_train D = 256 fwd_bwd with fa3 and cudnn, full verification. HEAD's kernel is
# compared through cuDNN: v3's run (../fa3_bwd_d256/v3/, fa3 / cuDNN geomean 0.830x).
# From the repository root with carry=[".carry"]:  bash results/h200/fa3_bwd_d256_tma_dq/call_short.sh
set -u
outdir=/tmp/tq; mkdir -p $outdir; budget=${BUDGET:-430}; PACK=$OUT/fa3_bwd_d256_tma_dq.tgz
source scripts/h200/steps.sh
patch -p1 < results/h200/fa3_bwd_d256_tma_dq/tma_dq.patch > $outdir/patch.log 2>&1 ||
  { echo "patch failed"; cat $outdir/patch.log; exit 1; }
build_limit=160 build_or_stop --target fa2bench fa2bench_gpu_tests
rm -rf /tmp/bb && ln -s /tmp/b /tmp/bb
tests_and_sanitizers '*Fa3Bwd*' '*Fa3BwdSweep*' 100 ||
  { echo "the candidate fails its tests or a sanitizer: no timing"; exit 1; }
m="--set measure.warmup=2 --set measure.min_samples=5 --set measure.max_samples=12"
step perf_train_d256 $(($(left) - 15)) /tmp/b/fa2bench sweep --config configs/perf_train.json \
  --target cuda --backends fa3,cudnn --filter '-D256/' $m --out $outdir/perf_train_d256 --quiet \
  > $outdir/perf_train_d256.stdout 2>&1
compare_pairs $outdir/perf_train_d256 fa3=cudnn
grep -E '^\| fa3 \| cudnn \| B' $outdir/compare_fa3_vs_cudnn.md | cut -d'|' -f4,10
tail -n 8 $outdir/compare_fa3_vs_cudnn.md
pack
echo "total: $(($(date +%s) - steps_start))s"
