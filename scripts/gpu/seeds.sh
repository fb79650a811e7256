#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# On the H200: build, run the whole test suite (GPU tests included), then both seed configs.
# Writes the tool's own outputs under results/h200/ and a tarball of them (plus logs) to $OUT.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/out}
mkdir -p "$out" results/h200
scripts/h200/build_on_device.sh 2>&1 | tail -5 | tee "$out/build.log"
bin=build-h200/fa2bench
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv | tee "$out/gpu_state.txt"
$bin devices | tee results/h200/devices.txt
(time ctest --test-dir build-h200 --output-on-failure -j 4) > "$out/ctest.log" 2>&1
tail -15 "$out/ctest.log"
for cfg in seed_notebook seed_article; do
  mkdir -p results/h200/$cfg
  $bin sweep --config configs/$cfg.json --target cuda --out results/h200/$cfg --quiet \
    > "results/h200/$cfg/stdout.txt" 2> "$out/$cfg.stderr" || true
  echo "== $cfg: exit ${PIPESTATUS[0]}"; tail -25 "results/h200/$cfg/stdout.txt"
done
tar czf "$out/results_h200.tgz" results/h200
# PyTorch's SDPA backends on the same shapes, in the same job, for the ratios the issues ask for.
for cfg in seed_notebook seed_article; do
  PYTHONUNBUFFERED=1 python3 scripts/torch_sdpa_baseline.py --config configs/$cfg.json \
    --fa2bench $bin --only-shapes-of fa2 --backends flash,cudnn,math \
    --out results/h200/$cfg/torch_sdpa.json 2> "$out/torch_$cfg.log" || tail -5 "$out/torch_$cfg.log"
  grep -E "torch-|ms," "$out/torch_$cfg.log" | paste - - | tail -20
done
tar czf "$out/results_h200.tgz" results/h200
