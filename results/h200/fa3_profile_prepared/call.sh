#!/usr/bin/env bash
# Prepared in session 17 (not run): the first thing for the next device call. Builds HEAD and
#   1. runs the varlen GPU tests of cudnn (refactored onto tests/gpu/varlen_check.h in session
#      17 and not yet run since), fa3 and fa2;
#   2. profiles one fa3 launch and one cuDNN launch of perf_fwd's B8-H16-T2048-D128 bf16
#      non-causal case (fa3 0.76x cuDNN there, the largest gap at D = 128) in Nsight Compute,
#      with per-SASS-line stall counters, to be read side by side (scripts/h200/ncu_case.sh);
#   3. the same for the causal case at T = 512 (0.76x, persistent);
#   4. D = 128 causal long keys, persistent against per-tile, three interleaved rounds.
# From the repository root with carry=[".carry"]:
#   bash results/h200/fa3_profile_prepared/call.sh
set -u
outdir=/tmp/fp; mkdir -p $outdir; budget=540; PACK=$OUT/fa3_profile.tgz
source scripts/h200/steps.sh
build_or_stop
timeout 120 /tmp/b/tests/fa2bench_gpu_tests --gtest_filter='*CudnnVarlen*:*Fa3Varlen*:*Fa2Varlen*' \
  --gtest_brief=1 > $outdir/tests_varlen.log 2>&1
echo "varlen tests: exit $?"; grep -E '^\[  (PASSED|FAILED)  \]|FAILED' $outdir/tests_varlen.log | head
pack
for c in "B8-H16-T2048-D128/bf16/full fwd_d128_t2048_full" "B32-H16-T512-D128/bf16/causal fwd_d128_t512_causal"; do
  set -- $c
  [ "$(left)" -gt 120 ] || { echo "ncu $2: skipped (time)"; continue; }
  scripts/h200/ncu_case.sh /tmp/b/fa2bench configs/perf_fwd.json fa3 fa3_fwd_kernel "$1" $outdir/ncu "fa3_$2"
  scripts/h200/ncu_case.sh /tmp/b/fa2bench configs/perf_fwd.json cudnn 'flash|sdpa|fprop|fmha' "$1" $outdir/ncu "cudnn_$2"
  pack
done
# 4. D = 128 causal on long keys: persistent against per-tile, interleaved three times in this
#    one binary (+5% in one session-17 call, -2% in the next).
f='^(fa3|cudnn)/(B2-H16-T8192-D128|B1-H16-T16384-D128)/(bf16|fp16)/causal'
for r in 1 2 3; do
  for v in 0 1; do
    [ "$(left)" -gt 40 ] || break 2
    FA2BENCH_FA3_PERSISTENT=$v timeout 30 /tmp/b/fa2bench sweep --config configs/perf_fwd.json \
      --target cuda --backends fa3 --filter "$f" --out $outdir/ab/p${v}_$r --quiet > /dev/null 2>&1
    echo "persistent=$v round $r: $?"
  done
done
pack
echo "total: $(($(date +%s) - steps_start))s"
