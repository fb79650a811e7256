#!/usr/bin/env bash
# Session 16, call 4: the fa2 backward's per-warp phase trace (session 13's bwd_trace.patch, run
# for the first time): an -DFA2B_BWD_TRACE build of the GPU tests, Fa2BwdBench.DISABLED_Trace on
# three shapes, and bwd_trace_summary.py on each CSV. Run from the repository root with
# carry=[".carry"]:
#   bash results/h200/training/kernel_bench/session16_trace/call.sh
set -u
outdir=/tmp/ct; mkdir -p $outdir; budget=260; PACK=$OUT/trace.tgz
source scripts/h200/steps.sh
source scripts/h200/env.sh
export LD_LIBRARY_PATH=$PWD/.carry/deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
k=results/h200/training/kernel_bench/session13
rm -rf /tmp/exp && cp -r "$PWD" /tmp/exp && (cd /tmp/exp && git apply $k/bwd_trace.patch 2>$outdir/patch.log || patch -p1 < $k/bwd_trace.patch >> $outdir/patch.log 2>&1; echo "patch: $?")
step build 170 sh -c "cd /tmp/exp && FA2BENCH_BUILD_DIR=/tmp/b FA2BENCH_CMAKE_ARGS='-DCMAKE_CUDA_FLAGS=-DFA2B_BWD_TRACE -DCMAKE_CXX_FLAGS=-DFA2B_BWD_TRACE' scripts/h200/build_on_device.sh --target fa2bench_gpu_tests > $outdir/build.log 2>&1"
tail -n 1 $outdir/build.log
for shape in 2,16,8192,128,1 2,16,8192,128,0 4,16,4096,64,1; do
  name=trace_${shape//,/_}
  FA2BENCH_BENCH_SHAPE=$shape FA2BENCH_TRACE_OUT=$outdir/$name.csv timeout 30 /tmp/b/tests/fa2bench_gpu_tests \
    --gtest_also_run_disabled_tests --gtest_filter='*Fa2BwdBench.DISABLED_Trace' > $outdir/$name.log 2>&1
  echo "$shape: exit $?"
  python3 $k/bwd_trace_summary.py $outdir/$name.csv > $outdir/$name.summary.txt 2>&1
  gzip -f $outdir/$name.csv
done
cat $outdir/trace_2_16_8192_128_1.summary.txt | head -60
pack
echo "total: $(($(date +%s) - steps_start))s"
