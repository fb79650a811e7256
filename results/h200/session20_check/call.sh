#!/usr/bin/env bash
# Prepared in session 19 (not run): the checks session 19's kernels did not get for lack of
# device time. At HEAD: every GPU test (ctest -L gpu, a process per test); the seed configs with
# fa3 beside their backends; memcheck and synccheck over the fa3 forward per tile (racecheck ran
# per tile in call 3) and over the fa3 backward with the long and layout tests; then the
# transformer training step (configs/seed_training_step.json) with fa3 beside fa2 and cudnn, and
# PyTorch flash in the same call, for issue 16's table with the Hopper kernel in it.
# From the repository root with carry=[".carry"]:  bash results/h200/session20_check/call.sh
set -u
outdir=/tmp/s20; mkdir -p $outdir; budget=560; PACK=$OUT/session20_check.tgz
source scripts/h200/steps.sh
build_or_stop --target fa2bench fa2bench_gpu_tests
s=$(date +%s)
( timeout 170 ctest --test-dir /tmp/b -L gpu -j 6 --output-on-failure > $outdir/ctest_gpu.log 2>&1
  echo "ctest -L gpu: exit $? in $(($(date +%s) - s))s" ) &
for tool in memcheck synccheck; do
  ( FA2BENCH_FA3_PERSISTENT=0 FA2BENCH_FA3_L2_SECTION=3 SANITIZE_TOOLS=$tool SANITIZE_FILTER='*Fa3KernelSweep*:*Fa3Bwd*' \
      SANITIZE_CLASSES=small SANITIZE_JOBS=2 SANITIZE_OUT=$outdir/$tool timeout 170 \
      scripts/sanitize.sh /tmp/b > $outdir/$tool.log 2>&1
    echo "$tool (fa3 forward per tile, backward): exit $?" ) &
done
wait; pkill -f compute-sanitizer
grep -E "tests passed|tests failed" $outdir/ctest_gpu.log
grep -E "^\s+[0-9]+ - .*\((Failed|Timeout)" $outdir/ctest_gpu.log | head
cat $outdir/*/summary.txt 2>/dev/null
pack
step seeds 130 scripts/h200/seeds_with.sh fa3 /tmp/b $outdir/seeds_with_fa3
t=$(($(left) - 20))
if [ $t -gt 90 ]; then
  python3 - <<'PY'
import json
c = json.load(open('configs/seed_training_step.json'))
c['sweeps'][0]['backends'] = ['fa2', 'fa3', 'cudnn']
c['checks'] = [k for k in c['checks'] if k.get('select', {}).get('backend') in (None, 'fa2', 'cudnn')
               and 'naive' not in json.dumps(k) and 'standard' not in json.dumps(k)]
c['name'] = 'seed_training_step_fa3'
json.dump(c, open('/tmp/seed_training_step_fa3.json', 'w'), indent=1)
PY
  cp /tmp/seed_training_step_fa3.json $outdir/config_used.json
  TORCH_BACKENDS=flash timeout $t scripts/h200/training_step.sh /tmp/b /tmp/seed_training_step_fa3.json
  echo "training step: exit $?"
  cp -r results/h200/training_step/seed_training_step_fa3 $outdir/
fi
pack
echo "total: $(($(date +%s) - steps_start))s"
