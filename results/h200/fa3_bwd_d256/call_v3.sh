#!/usr/bin/env bash
# Session 22: d256_v3.patch (the working tree of this call): fa3's backward at D = 256 with call
# 1's and call 2's findings mended (README.md): both hand-over barriers are syncs at one
# instruction (racecheck reported the dSᵀ hand-over with an arrive at the first), and dQ is
# computed in 64-column pieces (ptxas serialised every wgmma of the kernel for want of registers,
# C7512). Only the D = 256 kernel changes, so no A/B of D = 64/128 (v2's was 1.000 ± 0.002).
# One build of the tree; the fa3 backward tests; the three sanitizers over the D = 256 sweeps;
# then perf_train's D = 256 cases in fwd_bwd with fa3, fa2 and cudnn in one sweep.
# From the repository root with carry=[".carry"]:  bash results/h200/fa3_bwd_d256/call_v3.sh
set -u
outdir=/tmp/d3; mkdir -p $outdir; budget=${BUDGET:-480}; PACK=$OUT/fa3_bwd_d256_v3.tgz
source scripts/h200/steps.sh
step build 220 sh -c "FA2BENCH_BUILD_DIR=/tmp/bb scripts/h200/build_on_device.sh \
  --target fa2bench fa2bench_gpu_tests > $outdir/build.log 2>&1"
[ -x /tmp/bb/tests/fa2bench_gpu_tests ] || { echo "no binaries"; tail -n 5 $outdir/build.log; exit 1; }
tests_and_sanitizers '*Fa3Bwd*' '*Fa3BwdSweep*d256*' ||
  { echo "the candidate fails its tests: no timing"; exit 1; }
m="--set measure.warmup=2 --set measure.min_samples=5 --set measure.max_samples=12"
t=$(($(left) - 15))
[ $t -gt 30 ] && timeout $t /tmp/bb/fa2bench sweep --config configs/perf_train.json --target cuda \
  --backends fa3,fa2,cudnn --filter '-D256/' $m --out $outdir/perf_train_d256 --quiet \
  > $outdir/perf_train_d256.stdout 2>&1
echo "perf_train D = 256: exit $?"
compare_pairs $outdir/perf_train_d256 fa3=cudnn fa3=fa2
tail -n 8 $outdir/compare_fa3_vs_cudnn.md
tail -n 6 $outdir/compare_fa3_vs_fa2.md
pack
echo "total: $(($(date +%s) - steps_start))s"
