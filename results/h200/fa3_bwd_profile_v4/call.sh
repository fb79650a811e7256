#!/usr/bin/env bash
# Prepared in session 24 (not run): one call for what session 24 left.
# 1. Nsight Compute of the fa3 backward beside cuDNN's at perf_train's T = 8192 bf16 shapes,
#    D = 256 (after its dQ went to the copy engine, 9ae5524) and D = 128 (never profiled since
#    v3: ../fa3_bwd_profile/call.sh was not run), causal and not, one launch each, with
#    scripts/ncu_opcode_mix.py on each pair.
# 2. fa3 beside PyTorch flash at D = 256 (../training/fa3_vs_torch_flash/call.sh's steps with
#    PERF_FILTER), the first timing beside PyTorch since the change.
# Predictions: D = 256 L2 throughput from 87% to about cuDNN's 40-55%, the stalls now on the
#   wgmma waits and the two hand-over barriers; D = 128 (fa3 / cuDNN 0.885-0.94x) shows no REDG
#   (its dQ already goes by the copy engine) and its gap in the per-block barrier and wgmma waits;
#   fa3 / PyTorch flash at D = 256 1.9-2.0x from T = 2048.
# From the repository root with carry=[".carry"]:  bash results/h200/fa3_bwd_profile_v4/call.sh
set -u
outdir=/tmp/p4; mkdir -p $outdir; budget=${BUDGET:-560}; PACK=$OUT/fa3_bwd_profile_v4.tgz
source scripts/h200/steps.sh
build_or_stop --target fa2bench
for shape in B2-H8-T8192-D256 B2-H16-T8192-D128; do
  d=${shape##*-}
  kernel=fa3_bwd_kernel; [ "$d" = D256 ] && kernel=fa3_bwd_split_kernel
  for mask in causal full; do
    c=$shape/bf16/$mask/fwd_bwd
    step "ncu fa3 $d $mask" 60 scripts/h200/ncu_case.sh /tmp/b/fa2bench configs/perf_train.json \
      fa3 "$kernel" "$c" $outdir/ncu fa3_bwd_${d}_$mask
    step "ncu cudnn $d $mask" 60 scripts/h200/ncu_case.sh /tmp/b/fa2bench configs/perf_train.json \
      cudnn flash_bprop "$c" $outdir/ncu cudnn_bwd_${d}_$mask
    a=$outdir/ncu/fa3_bwd_${d}_${mask}_sass.csv b=$outdir/ncu/cudnn_bwd_${d}_${mask}_sass.csv
    [ -s "$a" ] && [ -s "$b" ] &&
      python3 scripts/ncu_opcode_mix.py "$a" "$b" > $outdir/ncu/mix_${d}_$mask.txt 2>&1
  done
done
pack
step perf_train_d256 $(($(left) - 10)) env TRAINING_ROOT=$outdir STAGES=perf TORCH_BACKENDS=flash \
  PERF_TAG=fa3_vs_torch_flash_d256 PERF_FILTER='^(fa3|torch-flash)/.*-D256/' \
  scripts/h200/training.sh /tmp/b
grep -E '^\| fa3 ' $outdir/perf_train_fa3_vs_torch_flash_d256/compare_vs_torch.md |
  awk -F'|' '{print $4, $10}'
pack
echo "total: $(($(date +%s) - steps_start))s"
