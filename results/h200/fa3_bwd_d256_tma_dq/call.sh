#!/usr/bin/env bash
# Session 24: the D = 256 backward's dQ by the copy engine (tma_dq.patch). Nsight Compute in
# ../fa3_accept/run2/ncu/ found fa3_bwd_split_kernel L2-bound (L2 throughput 87%, cuDNN's 53%;
# SM throughput 32% against 65%) on its 33.8 M float2 atomics (REDG), whose stalls (lg
# throttle, and long-scoreboard waits to reuse their address and data registers) hold about 47%
# of the warp samples; cuDNN's kernel has no REDG and adds dQ with UTMAREDG.4D.ADD. The patch
# stages each 64-column dQ piece in the consumer's dead half of the stage's Q (piece 0) and dO
# (piece 1); a writer thread in the producer warpgroup issues the reduce-adds and frees the stage.
# 1. build_ab: HEAD (/tmp/ba) and the patched tree with its GPU tests (/tmp/bb).
# 2. The patched build's fa3 backward tests and memcheck, racecheck, synccheck over the sweep.
# 3. perf_train D = 256 fwd_bwd with fa3 and cudnn on the patched build, full verification.
# 4. With what is left: HEAD and patched fa3 interleaved on perf_train D = 256 (8 verified rows).
# Prediction: tests and sanitizers clean; fwd_bwd D = 256 +15-25%, fa3 / cuDNN from 0.83x
# (geomean, v3) to 0.95-1.0x.
# From the repository root with carry=[".carry"]:  bash results/h200/fa3_bwd_d256_tma_dq/call.sh
set -u
outdir=/tmp/tq; mkdir -p $outdir; budget=${BUDGET:-570}; PACK=$OUT/fa3_bwd_d256_tma_dq.tgz
source scripts/h200/steps.sh
k=results/h200/fa3_bwd_d256_tma_dq
build_ab $k/tma_dq.patch
tests_and_sanitizers '*Fa3Bwd*' '*Fa3BwdSweep*' 130 ||
  { echo "the candidate fails its tests or a sanitizer: no timing"; exit 1; }
m="--set measure.warmup=2 --set measure.min_samples=5 --set measure.max_samples=12"
step perf_train_d256 200 /tmp/bb/fa2bench sweep --config configs/perf_train.json --target cuda \
  --backends fa3,cudnn --filter '-D256/' $m --out $outdir/perf_train_d256 --quiet \
  > $outdir/perf_train_d256.stdout 2>&1
compare_pairs $outdir/perf_train_d256 fa3=cudnn
grep -E '^\| fa3 \| cudnn \| B' $outdir/compare_fa3_vs_cudnn.md | cut -d'|' -f4,10
tail -n 8 $outdir/compare_fa3_vs_cudnn.md
ab_rounds 2 $outdir/ab --config configs/perf_train.json --target cuda --backends fa3 \
  --filter '-D256/' $m --set measure.verify_rows=8
python3 results/h200/fa3_bwd_v3/ab_table.py $outdir/ab | tee $outdir/ab.md
pack
echo "total: $(($(date +%s) - steps_start))s"
