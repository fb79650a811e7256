#!/usr/bin/env bash
# The shipped choice after call 1 (persistent for D = 64 and D = 128 causal up to 2048 keys;
# packed varlen batches always per tile), measured: the fa3 forward and varlen tests as shipped,
# configs/varlen.json, and perf_fwd's fa3 / cuDNN cases. From the repository root with
# carry=[".carry"]:  bash results/h200/fa3_persistent_merge/call2.sh
set -u
outdir=/tmp/pm2; mkdir -p $outdir; budget=300; PACK=$OUT/persistent_merge2.tgz
source scripts/h200/steps.sh
step build 170 sh -c "FA2BENCH_BUILD_DIR=/tmp/b scripts/h200/build_on_device.sh --target fa2bench fa2bench_gpu_tests > $outdir/build.log 2>&1"
tail -n 1 $outdir/build.log
[ -x /tmp/b/fa2bench ] || { echo "no binary"; pack; exit 1; }
timeout 60 /tmp/b/fa2bench sweep --config configs/varlen.json --target cuda --backends fa3,cudnn \
  --out $outdir/varlen --quiet > $outdir/varlen.stdout 2>&1
echo "varlen sweep: exit $?"; grep -E "packed|fa3_packed" $outdir/varlen.stdout | head -8
/tmp/b/fa2bench compare $outdir/varlen/results.json $outdir/varlen/results.json --pair fa3=cudnn --format md > $outdir/varlen_fa3_vs_cudnn.md 2>/dev/null
pack
timeout 90 /tmp/b/tests/fa2bench_gpu_tests --gtest_filter='*Fa3Kernel*:*Fa3Fwd*:*Fa3Varlen*' --gtest_brief=1 > $outdir/tests_shipped.log 2>&1
echo "tests shipped: exit $?"; grep -E '^\[  (PASSED|FAILED)  \]' $outdir/tests_shipped.log
f='^(fa3|cudnn)/(B32-H(32|16|8)-T512|B8-H(32|16|8)-T2048|B2-H16-T8192-D128)'
t=$(($(left) - 15)); [ $t -gt 30 ] && timeout $t /tmp/b/fa2bench sweep --config configs/perf_fwd.json --target cuda \
  --backends fa3,cudnn --filter "$f" --out $outdir/perf --quiet > $outdir/perf.stdout 2>&1
echo "perf: exit $?"
/tmp/b/fa2bench compare $outdir/perf/results.json $outdir/perf/results.json --pair fa3=cudnn --format md > $outdir/fa3_vs_cudnn.md 2>/dev/null
pack
echo "total: $(($(date +%s) - steps_start))s"
