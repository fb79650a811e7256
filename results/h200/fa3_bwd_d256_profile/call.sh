#!/usr/bin/env bash
# Prepared in session 23 (not run): Nsight Compute of the D = 256 backward (fa3_bwd_split_kernel,
# shipped in session 22 at 0.83x cuDNN fwd_bwd) beside cuDNN's fused backward, at perf_train's
# B2-H8-T8192-D256 bf16, causal first (0.79x, the widest gap), then non-causal. One launch each.
# What to read: the share of stall samples on the dQ float2 atomics (RED) and the barriers of the
# two hand-overs, against cuDNN's dQ path; scripts/ncu_opcode_mix.py on the two *_sass.csv.
# Prediction: the atomics' long-scoreboard and LSU-throttle stalls hold 15-25% of fa3's samples.
# cuDNN's D = 256 backward kernel is named ..._flash_bprop_wgmma_f16_knob_26_64x64x256_1x4x1_...
# in committed sanitizer logs (sanitize_session13/racecheck_filter_too_wide/): 64 x 64 blocks
# like ours, so its dQ additions per FLOP are likely the same and the gap lies elsewhere (1x4x1
# is most likely its warps' layout: its forward, 64x128x128_4x1x1, has a 64-row tile).
# From the repository root with carry=[".carry"]:  bash results/h200/fa3_bwd_d256_profile/call.sh
set -u
outdir=/tmp/bp256; mkdir -p $outdir; budget=${BUDGET:-540}; PACK=$OUT/fa3_bwd_d256_profile.tgz
source scripts/h200/steps.sh
build_or_stop --target fa2bench
for mask in causal full; do
  c=B2-H8-T8192-D256/bf16/$mask/fwd_bwd
  step "ncu fa3 $mask" $(( ($(left) - 20) / 2 )) scripts/h200/ncu_case.sh /tmp/b/fa2bench \
    configs/perf_train.json fa3 fa3_bwd_split_kernel "$c" $outdir/ncu fa3_bwd_d256_$mask
  step "ncu cudnn $mask" $(( ($(left) - 20) / 2 )) scripts/h200/ncu_case.sh /tmp/b/fa2bench \
    configs/perf_train.json cudnn flash_bprop "$c" $outdir/ncu cudnn_bwd_d256_$mask
done
for mask in causal full; do
  a=$outdir/ncu/fa3_bwd_d256_${mask}_sass.csv b=$outdir/ncu/cudnn_bwd_d256_${mask}_sass.csv
  [ -s "$a" ] && [ -s "$b" ] && python3 scripts/ncu_opcode_mix.py "$a" "$b" > $outdir/ncu/mix_$mask.txt 2>&1
done
pack
echo "total: $(($(date +%s) - steps_start))s"
