#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# On the H200, after a build into BUILD_DIR: every backward GPU test, the backward timing
# harness, and compute-sanitizer memcheck and racecheck over the fa2 backward on short lengths
# (one head dim per tile table and both dtypes; FA2BENCH_TEST_MAX_T bounds the lengths), each
# log under LOG_DIR.
#   scripts/h200/bwd_check.sh BUILD_DIR LOG_DIR
set -uo pipefail
build=$1 logs=$2
tests=$build/tests/fa2bench_gpu_tests
mkdir -p "$logs"
timeout 150 "$tests" --gtest_filter='*Bwd*:*bwd*' > "$logs/bwd_tests.log" 2>&1
echo "backward tests: exit $? $(grep -E '^\[  (PASSED|FAILED)' "$logs/bwd_tests.log" | tr '\n' ' ')"
timeout 60 "$tests" --gtest_also_run_disabled_tests --gtest_filter='*Fa2BwdBench*' 2>&1 |
  grep FA2BWDBENCH > "$logs/bwd_bench.log"
cat "$logs/bwd_bench.log"
filter='*Fa2BwdSweep*d64*:*Fa2BwdSweep*d256*:*Fa2Bwd.GroupedQueryHeads*'
for tool in memcheck racecheck; do
  FA2BENCH_TEST_MAX_T=17 timeout 80 compute-sanitizer --tool $tool --error-exitcode 86 \
    "$tests" --gtest_filter="$filter" --gtest_brief=1 > "$logs/sanitize_$tool.log" 2>&1
  echo "$tool: exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$logs/sanitize_$tool.log" | tail -1)"
done
