#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# On the H200: the training-mode runs of issue 15, written under results/h200/training/.
#   STAGES="seed perf" scripts/h200/training.sh BUILD_DIR
# seed: configs/seed_training.json (every backend; those without a backward answer
#       "unsupported", so its checks on them fail until they have one: exit 1 is recorded).
# perf: configs/perf_train.json (its backends) and PyTorch SDPA (TORCH_BACKENDS, default
#       flash,cudnn) in fwd_bwd on the same cases in the same job, then compare --pair
#       fa2=torch-flash --pair fa3=torch-flash --pair cudnn=torch-cudnn. PERF_FILTER (a case-id
#       regex, e.g. D128) runs part of the grid, PyTorch on the same shapes; PERF_TAG names the
#       results folder perf_train_TAG.
# TRAINING_ROOT (default results/h200/training) is where the folders go: a device call points it
# at its own output folder, which it packs after every step.
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/h200/env.sh
build=${1:-build-h200}
bin=$build/fa2bench
root=${TRAINING_ROOT:-results/h200/training}
for stage in ${STAGES:-seed perf}; do
  case $stage in
    seed)
      dir=$root/seed_training
      rm -rf "$dir" && mkdir -p "$dir"
      gpu_state > "$dir/gpu_state.csv"
      start=$(date +%s)
      $bin sweep --config configs/seed_training.json --target cuda --out "$dir" --quiet \
        > "$dir/sweep.stdout" 2>&1
      echo "seed_training: exit $? in $(( $(date +%s) - start ))s"
      ;;
    perf)
      dir=$root/perf_train${PERF_TAG:+_$PERF_TAG}
      rm -rf "$dir" && mkdir -p "$dir"
      gpu_state > "$dir/gpu_state.csv"
      start=$(date +%s)
      $bin sweep --config configs/perf_train.json --target cuda --out "$dir/ours" --quiet \
        --filter "${PERF_FILTER:-.}" > "$dir/sweep.stdout" 2>&1
      echo "perf_train (ours): exit $? in $(( $(date +%s) - start ))s"
      start=$(date +%s)
      PYTHONUNBUFFERED=1 python3 scripts/torch_sdpa_baseline.py --config configs/perf_train.json \
        --fa2bench "$bin" --backends ${TORCH_BACKENDS:-flash,cudnn} --mode fwd_bwd --out "$dir/torch_sdpa.json" \
        --filter "${PERF_FILTER:-.}" \
        > "$dir/torch_sdpa.log" 2>&1
      echo "perf_train (torch): exit $? in $(( $(date +%s) - start ))s"
      # A pair for each of our backends that ran (a PERF_FILTER may leave some out: compare
      # refuses a pair whose backend is absent) against the PyTorch backend that ran.
      pairs=()
      for pair in fa2=torch-flash fa3=torch-flash cudnn=torch-cudnn; do
        grep -q "\"backend\": *\"${pair%%=*}\"" "$dir/ours/results.json" &&
          grep -q "\"backend\": *\"${pair#*=}\"" "$dir/torch_sdpa.json" && pairs+=(--pair "$pair")
      done
      $bin compare "$dir/torch_sdpa.json" "$dir/ours/results.json" "${pairs[@]}" --format md > "$dir/compare_vs_torch.md" 2> "$dir/compare.stderr"
      echo "compare: exit $?"
      ;;
    *) echo "training.sh: unknown stage $stage" >&2; exit 2 ;;
  esac
done
