#!/usr/bin/env bash
# Session 20, call 2: the prepared A/B of the fa3 backward's statistics by the copy engine
# (results/h200/fa3_bwd_stats_tma/call.sh, its budget cut to 450 s), then on HEAD's binary from
# that call configs/varlen.json in full (fa3 packed against cuDNN packed, after session 19's L2
# sections), and the isolation test that call 1 could not run (its test binary's build did not
# build fa2bench_faulty; tests/CMakeLists.txt now makes the test targets depend on it).
# From the repository root with carry=[".carry"]:  bash results/h200/session20_check/call2.sh
set -u
BUDGET=450 bash results/h200/fa3_bwd_stats_tma/call.sh
echo "stats_tma call: exit $?"
outdir=/tmp/s20b; mkdir -p $outdir; budget=120; PACK=$OUT/session20_call2.tgz
source scripts/h200/steps.sh
timeout 60 /tmp/ba/fa2bench sweep --config configs/varlen.json --target cuda --out $outdir/varlen \
  --quiet > $outdir/varlen.stdout 2>&1
echo "varlen sweep (HEAD): exit $?"
tail -n 16 $outdir/varlen.stdout
[ -x /tmp/bb/tests/fa2bench_faulty ] && echo "fa2bench_faulty built with the test target"
timeout 30 /tmp/bb/tests/fa2bench_gpu_tests --gtest_filter='GpuIsolation.*' > $outdir/isolation.log 2>&1
echo "isolation test: exit $?"
pack
