#!/usr/bin/env bash
# Prepared in session 20 (not run): issue 16's acceptance in one call. configs/seed_training_step.json
# whole (naive, standard, fa2, cudnn and every check) with fa3 added beside them, then PyTorch's
# model with flash, cuDNN and math SDPA (scripts/h200/training_step.sh), and the compare tables
# fa2=torch-flash, fa3=torch-flash, cudnn=torch-cudnn. Session 20's call 1 ran fa2, fa3 and cudnn
# with PyTorch flash only (fa2 0.914-0.998x PyTorch flash's step time); session 12's whole config
# measured 1.006x at 16K. The 16K point sits within call-to-call noise of issue 16's 1.0x line.
# From the repository root with carry=[".carry"]:  bash results/h200/training_step/full_with_fa3/call.sh
set -u
outdir=/tmp/tf; mkdir -p $outdir; budget=560; PACK=$OUT/training_step_full.tgz
source scripts/h200/steps.sh
build_or_stop --target fa2bench
python3 - <<'PY'
import json
c = json.load(open('configs/seed_training_step.json'))
c['sweeps'][0]['backends'] = c['sweeps'][0]['backends'] + ['fa3']
c['name'] = 'seed_training_step_with_fa3'
json.dump(c, open('/tmp/seed_training_step_with_fa3.json', 'w'), indent=1)
PY
cp /tmp/seed_training_step_with_fa3.json $outdir/config_used.json
timeout $(($(left) - 20)) scripts/h200/training_step.sh /tmp/b /tmp/seed_training_step_with_fa3.json
echo "training step: exit $?"
cp -r results/h200/training_step/seed_training_step_with_fa3 $outdir/
tail -n 12 $outdir/seed_training_step_with_fa3/sweep.stdout
for f in $outdir/seed_training_step_with_fa3/compare_*.md; do echo "== $f"; tail -n 6 "$f"; done
pack
echo "total: $(($(date +%s) - steps_start))s"
