#!/usr/bin/env bash
# Session 24, after call.sh took shortest_d256.patch (committed): the three sanitizers over the
# fa3 forward sweep as shipped (call.sh ran them with the persistent launch forced, so the new
# 64-key causal D = 256 tile's own launch had its tests but no sanitizer), the fa3 tests on HEAD,
# then with what is left, results/h200/fa3_bwd_d256_profile/call.sh's Nsight Compute runs
# (causal first) on the same build.
# Prediction: 0 errors and hazards; every fa3 test passes.
# From the repository root with carry=[".carry"]:  bash results/h200/fa3_accept/call2.sh
set -u
outdir=/tmp/ac2; mkdir -p $outdir; budget=${BUDGET:-570}; PACK=$OUT/fa3_accept2.tgz
source scripts/h200/steps.sh
build_limit=220 build_or_stop --target fa2bench fa2bench_gpu_tests
rm -rf /tmp/bb && ln -s /tmp/b /tmp/bb
tests_and_sanitizers '*Fa3*' '*Fa3KernelSweep*' 130
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
