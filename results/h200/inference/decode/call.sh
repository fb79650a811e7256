#!/usr/bin/env bash
# Session 16, call 1 (prepared in session 15 as decode_session15/next_call.sh): issue 20's decode
# run in one call, with the device paged fill (Platform::fill_paged) and measure.settle_s in
# decode.json. First the GPU test that checks the device fill against the host scatter bit for
# bit and the decode/paged tests (gpu_tests.log); then scripts/h200/decode.sh (fa2, cudnn, naive,
# PyTorch flash and cuDNN beside them, fa2 without its plan); then compute-sanitizer over the
# decode and paged sweeps (sanitize/). Run from the repository root with carry=[".carry"]:
#   bash results/h200/inference/decode/call.sh
set -u
outdir=/tmp/cd; mkdir -p $outdir; budget=570; PACK=$OUT/decode.tgz
source scripts/h200/steps.sh
source scripts/h200/env.sh
export LD_LIBRARY_PATH=$PWD/.carry/deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
step build 160 sh -c "FA2BENCH_BUILD_DIR=/tmp/b scripts/h200/build_on_device.sh > $outdir/build.log 2>&1"
tail -n 1 $outdir/build.log
step tests 60 sh -c "/tmp/b/tests/fa2bench_gpu_tests --gtest_filter='Fa2Paged.*:*Fa2Decode*' --gtest_brief=1 > $outdir/tests.log 2>&1"
grep -E "^\[  (PASSED|FAILED)  \]|tests? ran|FAILED" $outdir/tests.log
if grep -q "DeviceFillEqualsTheHostScatter" $outdir/tests.log && grep -q "FAILED.*DeviceFill" $outdir/tests.log; then
  echo "the device paged fill differs from the host scatter: no timing"; pack; exit 1
fi
step decode $(( $(left) - 20 )) sh -c "DECODE_DIR=$outdir/decode scripts/h200/decode.sh /tmp/b > $outdir/decode.log 2>&1"
tail -n 45 $outdir/decode.log
# What is left: memcheck, racecheck and synccheck over the decode and paged sweeps (the batched combine
# ran only memcheck and half a racecheck; the device paged fill none).
t=$(( $(left) - 20 ))
if [ $t -gt 30 ]; then
  for tool in memcheck racecheck synccheck; do
    ( SANITIZE_TOOLS=$tool SANITIZE_FILTER='*Fa2DecodeSweep*:*Fa2PagedSweep*:Fa2Paged.DeviceFill*' \
      SANITIZE_CLASSES=small SANITIZE_JOBS=2 SANITIZE_OUT=$outdir/sanitize_$tool timeout $t \
      scripts/sanitize.sh /tmp/b > $outdir/sanitize_$tool.log 2>&1; echo "$tool: exit $?" ) &
  done
  wait; pkill -f compute-sanitizer
fi
pack
echo "total: $(($(date +%s) - steps_start))s"
