#!/usr/bin/env bash
# Session 21: fa3's backward at D = 256 (d256.patch: the head-dim split kernel,
# fa3_bwd_split_kernel.cuh; the key-split kernel's P, dS and dSᵀ-store code moved into helpers
# both kernels call). Two builds (HEAD: fa2bench; patched: fa2bench and the GPU tests); the fa3
# backward tests (every D, odd lengths, T = 4097, bshd, GQA, the runner's exact peak), the
# three sanitizers over the D = 256 sweeps; the D = 64/128 backward, HEAD and patched
# interleaved (the helpers must not move it); then perf_train's D = 256 cases in fwd_bwd with
# fa3, fa2 and cudnn in one sweep.
# Session 21 ran it with d256.patch (call1/). PATCH picks the candidate; the default is
# d256_v2.patch: call 1's synccheck and racecheck findings mended (see README.md), not yet run.
# From the repository root with carry=[".carry"]:  bash results/h200/fa3_bwd_d256/call.sh
set -u
outdir=/tmp/d2; mkdir -p $outdir; budget=${BUDGET:-540}; PACK=$OUT/fa3_bwd_d256.tgz
source scripts/h200/steps.sh
k=results/h200/fa3_bwd_d256
build_ab ${PATCH:-$k/d256_v2.patch}
tests_and_sanitizers '*Fa3Bwd*' '*Fa3BwdSweep*d256*' ||
  { echo "the candidate fails its tests: no timing"; exit 1; }
fb='^fa3/(B32-H(32|16)-T512|B8-H(32|16)-T2048|B2-H(32|16)-T8192)-.*/bf16/'
m="--set measure.warmup=2 --set measure.min_samples=5 --set measure.max_samples=12"
ab_rounds 2 $outdir/bwd --config configs/perf_train.json --target cuda --backends fa3 \
  --filter "$fb" --set grid.mode=bwd $m
python3 results/h200/fa3_bwd_v3/ab_table.py $outdir/bwd | tee $outdir/bwd_ab.md
pack
t=$(($(left) - 15))
[ $t -gt 30 ] && timeout $t /tmp/bb/fa2bench sweep --config configs/perf_train.json --target cuda \
  --backends fa3,fa2,cudnn --filter '-D256/' $m --out $outdir/perf_train_d256 --quiet \
  > $outdir/perf_train_d256.stdout 2>&1
echo "perf_train D = 256: exit $?"
compare_pairs $outdir/perf_train_d256 fa3=cudnn fa3=fa2
tail -n 30 $outdir/compare_fa3_vs_cudnn.md
pack
echo "total: $(($(date +%s) - steps_start))s"
