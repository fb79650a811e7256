#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# compute-sanitizer over every kernel instantiation on the H200: memcheck and synccheck over all
# kernel tests; racecheck over the fa2 sweep (every dtype x head dim) and two naive shapes,
# each tool bounded in time so the call fits the device lease. Writes results/h200/sanitize/.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/out}
mkdir -p "$out"
scripts/h200/build_on_device.sh > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
rm -rf results/h200/sanitize
SANITIZE_OUT=results/h200/sanitize SANITIZE_TOOLS="memcheck synccheck" \
  timeout 150 scripts/sanitize.sh build-h200 | tail -3
SANITIZE_OUT=results/h200/sanitize-race SANITIZE_TOOLS=racecheck \
  SANITIZE_FILTER='*Fa2KernelSweep*:*NaiveSweep*bf16_D128_causal*:*NaiveSweep*fp16_D64_full*' \
  timeout 170 scripts/sanitize.sh build-h200 | tail -2
tar czf "$out/sanitize.tgz" results/h200/sanitize results/h200/sanitize-race
