#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One device call for fa2 backward variants built into one experiment binary and chosen by an
# environment variable (VAR): the Fa2Bwd odd-shape tests once per value, all values as
# concurrent processes (the float64 references are CPU-bound, the kernels small), then the
# interleaved timing of bwd_env_ab.sh. Logs and the A/B table under OUT_DIR.
#   [ROUNDS=3] [TEST_VALUES="..."] scripts/h200/bwd_env_check.sh TESTS VAR "V0 V1 ..." OUT_DIR
set -uo pipefail
bin=$1 var=$2 values=$3 out=$4
mkdir -p "$out"
start=$(date +%s)
for v in ${TEST_VALUES:-$values}; do
  env "$var=$v" "$bin" --gtest_filter='*Fa2Bwd*:-*Bench*' > "$out/tests_$v.log" 2>&1 &
done
wait
for v in ${TEST_VALUES:-$values}; do
  echo "tests $var=$v: $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/tests_$v.log" | tr '\n' ' ')"
done
echo "tests: $(($(date +%s) - start))s"
"$(dirname "$0")/bwd_env_ab.sh" "$bin" "$var" "$values" "$out/ab_runs.log" | tee "$out/ab.txt"
echo "total: $(($(date +%s) - start))s"
