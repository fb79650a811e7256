#!/usr/bin/env bash
# Prepared in session 15 (not run): fa2's decode kernels with three K/V stages
# (three_stages.patch, FA2BENCH_FA2_DECODE_STAGES=3) against the same binary's two, on
# decode.json's contiguous B = 1 and 8 points, after the decode tests both ways.
# Run from the repository root with carry=[".carry"]:
#   bash results/h200/inference/decode_stages_session15/call.sh
set -u
outdir=/tmp/cs; mkdir -p $outdir; budget=480; PACK=$OUT/stages.tgz
source scripts/h200/steps.sh
source scripts/h200/env.sh
export LD_LIBRARY_PATH=$PWD/.carry/deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
rm -rf /tmp/exp && cp -r "$PWD" /tmp/exp && (cd /tmp/exp && patch -p1 < results/h200/inference/decode_stages_session15/three_stages.patch > $outdir/patch.log 2>&1; echo "patch: $?")
step build 170 sh -c "cd /tmp/exp && FA2BENCH_BUILD_DIR=/tmp/b scripts/h200/build_on_device.sh > $outdir/build.log 2>&1"
tail -n 1 $outdir/build.log
for v in 2 3; do
  ( FA2BENCH_FA2_DECODE_STAGES=$v timeout 90 /tmp/b/tests/fa2bench_gpu_tests \
      --gtest_filter='*Fa2Decode*:*Fa2Paged*' --gtest_brief=1 > $outdir/tests_$v.log 2>&1 ) &
done
wait
for v in 2 3; do echo "stages=$v: $(grep -E '^\[  (PASSED|FAILED)  \]|tests? ran' $outdir/tests_$v.log | tr '\n' ' ')"; done
if grep -q FAILED $outdir/tests_3.log; then echo "three stages fail the decode tests: no timing"; pack; exit 1; fi
f='^fa2/B(1|8)-H32-[^/]*/bf16/causal$'
for r in 1 2; do
  for v in 2 3; do
    FA2BENCH_FA2_DECODE_STAGES=$v timeout 80 /tmp/b/fa2bench sweep --config configs/decode.json --target cuda \
      --backends fa2 --filter "$f" --out $outdir/s${v}_$r --quiet > $outdir/s${v}_$r.stdout 2>&1
    echo "stages=$v round $r: $?"
  done
done
for r in 1 2; do
  /tmp/b/fa2bench compare $outdir/s2_$r/results.json $outdir/s3_$r/results.json --format md > $outdir/compare_r$r.md 2>/dev/null
done
grep -E "^\| fa2" $outdir/compare_r2.md | awk -F'|' '{print $3, $4, $5, $7}'
pack
echo "total: $(($(date +%s) - steps_start))s"
