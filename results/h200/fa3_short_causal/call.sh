#!/usr/bin/env bash
# Prepared in session 20 (not run): the causal forward at short keys, where fa3 is below issue
# 17's 0.9x cuDNN (perf_fwd_fa3/: D = 64 T = 512 0.754x, D = 256 T = 512 0.84x).
# 1. A dev build (fa3 variants only) with two new candidates (kernels/fa3/fa3_dev_tiles.h, the
#    last of each list): D = 64 128x128 on two consumers, persistent, two Q buffers, the copy
#    engine storing O (session 18's T = 512 tune winner, +9.2%, had no copy-engine store);
#    D = 256 64-key staged per tile with the copy-engine store (the 64-key tile was 2.9% ahead
#    of the shipped 80-key one at T = 512 without it). Their tests first.
# 2. fa2bench tune --backend fa3 over short_causal.json: T = 512, 1024, 2048 (the length at which
#    a third key-length class would switch tiles), then fa3 and cudnn over the same config.
# 3. Nsight Compute of fa3 and cuDNN at B32-H32-T512-D64 causal: the case furthest below.
# Prediction: the D = 64 candidate wins at T = 512 by 9-12% and at T = 1024 by 0-5%, and loses at
# T = 2048 (session 18: -6%); the D = 256 candidate wins at T = 512 by 3-6%. Neither reaches
# 0.9x cuDNN at T = 512 (0.82x and 0.87-0.89x at best).
# From the repository root with carry=[".carry"]:  bash results/h200/fa3_short_causal/call.sh
set -u
outdir=/tmp/sc; mkdir -p $outdir; budget=${BUDGET:-540}; PACK=$OUT/fa3_short_causal.tgz
source scripts/h200/steps.sh
k=results/h200/fa3_short_causal
if fa3_dev_build_and_tests; then
  step tune 150 /tmp/b/fa2bench tune --backend fa3 --config $k/short_causal.json --out $outdir/tune \
    --overwrite --quiet > $outdir/tune.txt 2>&1
  sed -n '/^Winners/,$p' $outdir/tune.txt
fi
step sweep 60 /tmp/b/fa2bench sweep --config $k/short_causal.json --target cuda --out $outdir/sweep \
  --quiet > $outdir/sweep.stdout 2>&1
/tmp/b/fa2bench compare $outdir/sweep/results.json $outdir/sweep/results.json --pair fa3=cudnn \
  --format md > $outdir/compare_fa3_vs_cudnn.md 2>&1
pack
c=B32-H32-T512-D64/bf16/causal
for b in fa3 cudnn; do
  kern=fa3_fwd_kernel; [ $b = cudnn ] && kern='flash|sdpa|fprop|fmha'
  t=$(( ($(left) - 15) / 2 )); [ $b = cudnn ] && t=$(($(left) - 15))
  [ $t -gt 40 ] && timeout $t scripts/h200/ncu_case.sh /tmp/b/fa2bench configs/perf_fwd.json $b \
    "$kern" "$c" $outdir/ncu ${b}_t512_d64_causal
  pack
done
echo "total: $(($(date +%s) - steps_start))s"
