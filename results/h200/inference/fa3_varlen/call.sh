#!/usr/bin/env bash
# fa3's packed variable-length forward (session 17), in one call: build HEAD's tree, the varlen
# GPU tests of fa3 and fa2 (they now share tests/gpu/varlen_check.h) and every fa3 forward test
# (the dense path took the per-sequence tile fields), memcheck and synccheck over the fa3 varlen
# tests, then configs/varlen.json with PyTorch's SDPA beside it (scripts/h200/varlen.sh) and
# fa3 / cuDNN. Run from the repository root with carry=[".carry"]:
#   bash results/h200/inference/fa3_varlen/call.sh
set -u
outdir=/tmp/fv; mkdir -p $outdir; budget=560; PACK=$OUT/fa3_varlen.tgz
source scripts/h200/steps.sh
step build 200 sh -c "FA2BENCH_BUILD_DIR=/tmp/b scripts/h200/build_on_device.sh > $outdir/build.log 2>&1"
tail -n 1 $outdir/build.log
[ -x /tmp/b/fa2bench ] || { echo "no binary"; pack; exit 1; }
timeout 150 /tmp/b/tests/fa2bench_gpu_tests --gtest_filter='*Fa3Varlen*:*Fa2Varlen*:*NaiveVarlen*:*GpuRunnerVarlen*' \
  > $outdir/tests_varlen.log 2>&1
echo "varlen tests: exit $?"; grep -E '^\[  (PASSED|FAILED)  \]|FAILED|tests? ran' $outdir/tests_varlen.log | head -20
timeout 120 /tmp/b/tests/fa2bench_gpu_tests --gtest_filter='*Fa3Kernel*:*Fa3Fwd*' --gtest_brief=1 \
  > $outdir/tests_fa3_fwd.log 2>&1
echo "fa3 forward tests: exit $?"; grep -E '^\[  (PASSED|FAILED)  \]|tests? ran' $outdir/tests_fa3_fwd.log | head
( cd /tmp/b && timeout 60 ctest -L unit -R 'VarlenConfig|BackendCatalog' --output-on-failure > $outdir/unit.log 2>&1; echo "unit: exit $?" )
pack
for tool in memcheck synccheck; do
  ( SANITIZE_TOOLS=$tool SANITIZE_FILTER='*Fa3Varlen*' SANITIZE_CLASSES=small SANITIZE_JOBS=1 \
      SANITIZE_OUT=$outdir/sanitize_$tool timeout 120 scripts/sanitize.sh /tmp/b \
      > $outdir/sanitize_$tool.log 2>&1; echo "$tool: exit $?" ) &
done
wait; pkill -f compute-sanitizer
tail -n 3 $outdir/sanitize_memcheck.log $outdir/sanitize_synccheck.log
pack
t=$(($(left) - 20))
[ "$t" -gt 60 ] && VARLEN_DIR=$outdir/varlen timeout $t scripts/h200/varlen.sh /tmp/b
tail -n 30 $outdir/varlen/ours.stdout 2>/dev/null
/tmp/b/fa2bench compare $outdir/varlen/ours/results.json $outdir/varlen/ours/results.json --pair fa3=cudnn \
  --format md > $outdir/fa3_vs_cudnn.md 2>/dev/null; echo "compare fa3=cudnn: exit $?"
/tmp/b/fa2bench compare $outdir/varlen/torch_sdpa.json $outdir/varlen/ours/results.json --pair fa3=torch-flash \
  --format md > $outdir/fa3_vs_torch-flash.md 2>/dev/null; echo "compare fa3=torch-flash: exit $?"
pack
echo "total: $(($(date +%s) - steps_start))s"
