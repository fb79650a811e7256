#!/usr/bin/env bash
# The fa2 GPU tests once per tile table (FA2BENCH_FA2_GRID_CLASS=small|large forces the grid
# class, so both tables are exercised whatever the test shapes), one log per class:
#   scripts/h200/fa2_tests.sh PATH/TO/fa2bench_gpu_tests LOG_DIR
set -uo pipefail
tests=$1 logs=$2
for cls in small large; do
  FA2BENCH_FA2_GRID_CLASS=$cls "$tests" --gtest_filter='*Fa2*' > "$logs/gpu_tests_$cls.log" 2>&1
  echo "gpu tests (grid class $cls): exit $? $(grep -E '^\[  (PASSED|FAILED)' "$logs/gpu_tests_$cls.log" | tr '\n' ' ')"
done
