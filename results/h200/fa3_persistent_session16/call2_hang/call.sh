#!/usr/bin/env bash
# Prepared in session 15 for a later device session (not run): the persistent fa3 forward
# (persistent.patch) checked and timed against the same binary's per-tile launch, in one call.
# Run from the repository root with carry=[".carry"]:
#   bash results/h200/fa3_persistent_session15/call.sh
set -u
outdir=/tmp/cp; mkdir -p $outdir; budget=560; PACK=$OUT/persistent.tgz
source scripts/h200/steps.sh
source scripts/h200/env.sh
export LD_LIBRARY_PATH=$PWD/.carry/deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
rm -rf /tmp/exp && cp -r "$PWD" /tmp/exp && (cd /tmp/exp && patch -p1 < results/h200/fa3_persistent_session15/persistent.patch > $outdir/patch.log 2>&1; echo "patch: $?")
step build 170 sh -c "cd /tmp/exp && FA2BENCH_BUILD_DIR=/tmp/b scripts/h200/build_on_device.sh > $outdir/build.log 2>&1"
tail -n 1 $outdir/build.log
# Correctness first: every fa3 forward test, per-tile and persistent, side by side.
for v in 0 1; do
  ( FA2BENCH_FA3_PERSISTENT=$v timeout 120 /tmp/b/tests/fa2bench_gpu_tests --gtest_filter='*Fa3Kernel*:*Fa3Fwd*' \
      --gtest_brief=1 > $outdir/tests_$v.log 2>&1 ) &
done
wait
for v in 0 1; do echo "persistent=$v: $(grep -E '^\[  (PASSED|FAILED)  \]|tests? ran' $outdir/tests_$v.log | tr '\n' ' ')"; done
if grep -q FAILED $outdir/tests_1.log; then echo "persistent fails its tests: no timing"; pack; exit 1; fi
# The barrier logic under racecheck and synccheck (small shapes), persistent.
for tool in racecheck synccheck; do
  ( FA2BENCH_FA3_PERSISTENT=1 SANITIZE_TOOLS=$tool SANITIZE_FILTER='*Fa3KernelSweep*' SANITIZE_CLASSES=small \
      SANITIZE_JOBS=2 SANITIZE_OUT=$outdir/sanitize_$tool timeout 100 scripts/sanitize.sh /tmp/b \
      > $outdir/sanitize_$tool.log 2>&1; echo "$tool: exit $?" ) &
done
wait; pkill -f compute-sanitizer
# Timing: perf_fwd's fa3 and cudnn cases at T 512 and 2048 (issue 17's 0.9x line) and D128 8192,
# per-tile / persistent interleaved twice.
f='^(fa3|cudnn)/(B32-H(32|16|8)-T512|B8-H(32|16|8)-T2048|B2-H16-T8192-D128)'
for r in 1 2; do
  for v in 0 1; do
    FA2BENCH_FA3_PERSISTENT=$v timeout $(( $(left) / 3 )) /tmp/b/fa2bench sweep --config configs/perf_fwd.json \
      --target cuda --backends fa3,cudnn --filter "$f" --out $outdir/p${v}_$r --quiet > $outdir/p${v}_$r.stdout 2>&1
    echo "persistent=$v round $r: $?"
  done
done
/tmp/b/fa2bench compare $outdir/p0_1/results.json $outdir/p1_1/results.json --format md > $outdir/compare_r1.md 2>/dev/null
/tmp/b/fa2bench compare $outdir/p0_2/results.json $outdir/p1_2/results.json --format md > $outdir/compare_r2.md 2>/dev/null
/tmp/b/fa2bench compare $outdir/p1_2/results.json $outdir/p1_2/results.json --pair fa3=cudnn --format md > $outdir/fa3_vs_cudnn_persistent.md 2>/dev/null
grep -E "^\| fa3" $outdir/compare_r2.md | awk -F'|' '{print $4, $(NF-6), $(NF-1)}' | head -40
pack
echo "total: $(($(date +%s) - steps_start))s"
