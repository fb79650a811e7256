#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The fa2 GPU tests once per tile table (FA2BENCH_FA2_GRID_CLASS=small|large forces the grid
# class, so both tables are exercised whatever the test shapes), and again with causal grids
# forced to head-major order (FA2BENCH_FA2_CAUSAL_ORDER=head: by shape every D=128 test size
# gets heavy-first); one log per run:
#   scripts/gpu/fa2_tests.sh PATH/TO/fa2bench_gpu_tests LOG_DIR
set -uo pipefail
tests=$1 logs=$2
for order in shape head; do
  for cls in small large; do
    log=$logs/gpu_tests_$cls$([ "$order" = head ] && echo _head).log
    FA2BENCH_FA2_CAUSAL_ORDER=$order FA2BENCH_FA2_GRID_CLASS=$cls "$tests" --gtest_filter='*Fa2*' \
      > "$log" 2>&1
    echo "gpu tests (grid class $cls, causal order $order): exit $? $(grep -E '^\[  (PASSED|FAILED)' "$log" | tr '\n' ' ')"
  done
done
