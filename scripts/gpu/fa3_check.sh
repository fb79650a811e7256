#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# On the H200: the fa3 kernel tests, then perf_fwd and perf_train cases with fa3, fa2 and cudnn
# and the compare tables fa3 vs cudnn and fa3 vs fa2 (results/h200/perf_fwd_fa3/, or $FA3_CHECK_DIR).
#   [FA3_CHECK_DIR=...] [FA3_CHECK_TRAIN=0] scripts/h200/fa3_check.sh BUILD_DIR [FILTER]
#   FILTER: a case-id regex (default: all cases)
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/h200/env.sh
build=${1:-/tmp/b}
filter=${2:-.}
dir=${FA3_CHECK_DIR:-results/h200/perf_fwd_fa3}
rm -rf "$dir" && mkdir -p "$dir"
start=$(date +%s)
timeout 300 "$build"/tests/fa2bench_gpu_tests --gtest_filter='*Fa3*' > "$dir/fa3_gpu_tests.log" 2>&1
echo "fa3 tests: exit $? in $(( $(date +%s) - start ))s; $(grep -c '^\[       OK' "$dir/fa3_gpu_tests.log") ok, $(grep -c '^\[  FAILED' "$dir/fa3_gpu_tests.log") failed lines"
grep -m 12 -B2 -A8 "Failure" "$dir/fa3_gpu_tests.log" | head -60
start=$(date +%s)
"$build"/fa2bench sweep --config configs/perf_fwd.json --backends fa3 fa2 cudnn --filter "$filter" \
  --out "$dir/run" > "$dir/sweep.stdout" 2>&1
echo "sweep: exit $? in $(( $(date +%s) - start ))s"
for pair in fa3=cudnn fa3=fa2; do
  "$build"/fa2bench compare "$dir/run/results.json" "$dir/run/results.json" --pair "$pair" \
    --format md > "$dir/compare_${pair%%=*}_vs_${pair#*=}.md" 2> "$dir/compare_${pair#*=}.stderr"
  echo "compare $pair: exit $?"
  grep -A6 "Geometric mean" "$dir/compare_${pair%%=*}_vs_${pair#*=}.md" | head -8
done
# Training: perf_train cases (fwd_bwd) with fa3, fa2 and cudnn in one sweep.
[ "${FA3_CHECK_TRAIN:-1}" = 0 ] && exit 0
start=$(date +%s)
"$build"/fa2bench sweep --config configs/perf_train.json --backends fa3 fa2 cudnn \
  --filter "$filter" --out "$dir/train" > "$dir/train.stdout" 2>&1
echo "train sweep: exit $? in $(( $(date +%s) - start ))s"
for pair in fa3=cudnn fa3=fa2; do
  "$build"/fa2bench compare "$dir/train/results.json" "$dir/train/results.json" --pair "$pair" \
    --format md > "$dir/compare_train_${pair%%=*}_vs_${pair#*=}.md" 2>> "$dir/compare_train.stderr"
  echo "compare train $pair: exit $?"
  grep -A6 "Geometric mean" "$dir/compare_train_${pair%%=*}_vs_${pair#*=}.md" | head -8
done
