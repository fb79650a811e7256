#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# On the H200: the transformer training step of the model-scope issue, ours and PyTorch's in one
# job, written under results/h200/training_step/.
#   scripts/h200/training_step.sh BUILD_DIR [CONFIG]   (default configs/seed_training_step.json)
# TORCH_BACKENDS (default flash,cudnn,math) picks PyTorch's SDPA backends inside its model.
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/h200/env.sh
build=${1:-build-h200}
config=${2:-configs/seed_training_step.json}
bin=$build/fa2bench
dir=results/h200/training_step/$(basename "$config" .json)
rm -rf "$dir" && mkdir -p "$dir"
gpu_state > "$dir/gpu_state.csv"
start=$(date +%s)
$bin sweep --config "$config" --target cuda --out "$dir/ours" > "$dir/sweep.stdout" 2>&1
echo "ours: exit $? in $(( $(date +%s) - start ))s"
start=$(date +%s)
PYTHONUNBUFFERED=1 python3 scripts/torch_train_step.py --config "$config" --fa2bench "$bin" \
  --backends "${TORCH_BACKENDS:-flash,cudnn,math}" --out "$dir/torch_train_step.json" \
  > "$dir/torch_train_step.log" 2>&1
echo "torch: exit $? in $(( $(date +%s) - start ))s"
# The compare tables of the issue, from the two files of this one call.
# A pair only where both backends ran (TORCH_BACKENDS may leave PyTorch's cuDNN out, and the
# config may have no fa3).
for pair in fa2=torch-flash fa3=torch-flash cudnn=torch-cudnn; do
  grep -q "\"backend\": *\"${pair#*=}\"" "$dir/torch_train_step.json" || continue
  grep -q "\"backend\": *\"${pair%%=*}\"" "$dir/ours/results.json" || continue
  $bin compare "$dir/torch_train_step.json" "$dir/ours/results.json" --pair "$pair" --format md \
    > "$dir/compare_${pair%%=*}_vs_${pair#*=}.md" 2> "$dir/compare_${pair%%=*}.stderr"
  echo "compare $pair: exit $?"
done
