#!/usr/bin/env bash
# Session 15 call 7: issue 20's decode run at 0af5ded (batched combine, PDL): configs/decode.json
# with fa2, cudnn, naive, PyTorch flash and cuDNN beside them, fa2 without the plan; then
# compute-sanitizer memcheck and racecheck over the decode tests (the combine) with what is left.
set -u
outdir=/tmp/c7; mkdir -p $outdir; budget=560; PACK=$OUT/c7.tgz
source scripts/h200/steps.sh
source scripts/h200/env.sh
export LD_LIBRARY_PATH=$PWD/.carry/deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
step build 160 sh -c "FA2BENCH_BUILD_DIR=/tmp/b scripts/h200/build_on_device.sh > $outdir/build.log 2>&1"
tail -1 $outdir/build.log
step decode 330 sh -c "DECODE_DIR=$outdir/decode scripts/h200/decode.sh /tmp/b > $outdir/decode.log 2>&1"
cat $outdir/decode.log | tail -45
t=$(( $(left) - 20 ))
if [ $t -gt 30 ]; then
  for tool in memcheck racecheck; do
    ( SANITIZE_TOOLS=$tool SANITIZE_FILTER='*Fa2DecodeSweep*' SANITIZE_CLASSES=small SANITIZE_JOBS=2 \
      SANITIZE_OUT=$outdir/sanitize_$tool timeout $t scripts/sanitize.sh /tmp/b > $outdir/sanitize_$tool.log 2>&1;
      echo "sanitize $tool: exit $?" ) &
  done
  wait
  pkill -f compute-sanitizer
  tail -4 $outdir/sanitize_*.log
fi
pack
echo "total: $(($(date +%s) - steps_start))s"
