#!/usr/bin/env bash
# Prepared in session 24 (not run): one dQ writer for both fa3 backward kernels
# (dq_writer.patch). Up to D = 128 each consumer still has one thread issue its slice's
# reduce-adds: a warpgroup barrier so that the issuer's wait for the copy engine's read of the
# slice two blocks back covers all 128 threads, the stores, a second barrier to hand the slice
# over, then the issue. With the patch the D = 256 kernel's writer thread (warp 1 of the
# producer warpgroup) serves both: consumers wait on the slice's empty mbarrier (the writer
# arrives once the copy engine has read it) and arrive on its full one, with no warpgroup
# barrier; dQ's slices are indexed by stage. The D = 256 kernel's SASS is unchanged by the
# patch (cuobjdump, bf16); D = 64/128: BAR.SYNC 8 -> 4, no spills, no C75xx (nvcc here).
# 1. build_ab: HEAD (/tmp/ba) and the patched tree with its GPU tests (/tmp/bb).
# 2. The patched build's fa3 backward tests and memcheck, racecheck, synccheck over the sweep.
# 3. HEAD and patched interleaved, 2 rounds, perf_train fwd_bwd D = 64 and 128 (8 verified rows),
#    cudnn once; the patch is taken when its geomean gain is >= 1% and no case loses > 1.5%.
# Prediction: tests and sanitizers clean; D = 64/128 fwd_bwd +1-4% (the two barriers a block
# cost each warpgroup its slowest warp's arrival), most at T = 512 where blocks are few.
# From the repository root with carry=[".carry"]:  bash results/h200/fa3_bwd_dq_writer/call.sh
set -u
outdir=/tmp/dw; mkdir -p $outdir; budget=${BUDGET:-560}; PACK=$OUT/fa3_bwd_dq_writer.tgz
source scripts/h200/steps.sh
k=results/h200/fa3_bwd_dq_writer
build_ab $k/dq_writer.patch
tests_and_sanitizers '*Fa3Bwd*' '*Fa3BwdSweep*' 130 ||
  { echo "the candidate fails its tests or a sanitizer: no timing"; exit 1; }
f='^(fa3|cudnn)/.*-D(64|128)/'
m="--set measure.warmup=2 --set measure.min_samples=5 --set measure.max_samples=12 --set measure.verify_rows=8"
ab_fa3_vs_cudnn 2 $outdir/ab "$f" --config configs/perf_train.json $m
pack
echo "total: $(($(date +%s) - steps_start))s"
