#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# On the H200, in one job: configs/varlen.json (every backend it lists, padded and packed), then
# PyTorch flash and cuDNN SDPA on the same batches (nested tensors for packed, an explicit mask
# for padded), then the comparisons issue 20 asks for. Writes
# results/h200/inference/varlen/{ours/, torch_sdpa.json, compare_*.md}, or the same under
# $VARLEN_DIR.
#   scripts/h200/varlen.sh BUILD_DIR
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/h200/env.sh
build=${1:-build-h200}
bin=$build/fa2bench
dir=${VARLEN_DIR:-results/h200/inference/varlen}
rm -rf "$dir" && mkdir -p "$dir"
gpu_state > "$dir/gpu_state_start.csv"
$bin sweep --config configs/varlen.json --target cuda --out "$dir/ours" --quiet \
  > "$dir/ours.stdout" 2>&1
echo "varlen sweep: exit $?"
PYTHONUNBUFFERED=1 python3 scripts/torch_sdpa_baseline.py --config configs/varlen.json \
  --fa2bench "$bin" --backends flash,cudnn --only-shapes-of fa2 \
  --out "$dir/torch_sdpa.json" > "$dir/torch_sdpa.log" 2>&1
echo "torch flash, cudnn: exit $?"
for pair in fa2=torch-flash cudnn=torch-cudnn; do
  $bin compare "$dir/torch_sdpa.json" "$dir/ours/results.json" --pair "$pair" --format md \
    > "$dir/compare_${pair%%=*}_vs_${pair#*=}.md" 2> "$dir/compare_${pair%%=*}.stderr"
  echo "compare $pair: exit $?"
done
