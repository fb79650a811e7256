#!/usr/bin/env bash
# Prepared in session 19 (not run): Nsight Compute of the fa3 backward v3 beside cuDNN's fused
# backward (its `sdpa_sm90_flash_bprop_*` kernel) at D = 128 T = 8192 bf16, non-causal and causal
# (perf_train's fwd_bwd cases; one launch each, --profile-once). fa3's bwd is 0.86-0.87x cuDNN's
# there (session 19 call 2); the profiles say where the time goes (issue slots, barrier and
# wgmma waits per SASS line).
# From the repository root with carry=[".carry"]:  bash results/h200/fa3_bwd_profile/call.sh
set -u
outdir=/tmp/bp; mkdir -p $outdir; budget=540; PACK=$OUT/fa3_bwd_profile.tgz
source scripts/h200/steps.sh
build_or_stop --target fa2bench
for mask in full causal; do
  c=B2-H16-T8192-D128/bf16/$mask/fwd_bwd
  t=$(( ($(left) - 20) / 2 ))
  [ $t -gt 40 ] || break
  timeout $t scripts/h200/ncu_case.sh /tmp/b/fa2bench configs/perf_train.json fa3 fa3_bwd_kernel "$c" \
    $outdir/ncu fa3_bwd_d128_$mask
  pack
  t=$(( ($(left) - 20) / 2 ))
  [ $t -gt 40 ] || break
  timeout $t scripts/h200/ncu_case.sh /tmp/b/fa2bench configs/perf_train.json cudnn 'flash_bprop' "$c" \
    $outdir/ncu cudnn_bwd_d128_$mask
  pack
done
echo "total: $(($(date +%s) - steps_start))s"
