#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A/B timing of fa2 backward variants that one GPU-test binary selects by an environment
# variable (an experiment build's switch, e.g. FA2B_BWD_EXP): the disabled Fa2BwdBench harness
# once per value, values interleaved for ROUNDS rounds so that clock and thermal drift fall on
# all alike, then one line per shape with each value's median fwd+bwd and backward time over
# the rounds and its ratio to the first value's.
#   [ROUNDS=3] [FA2BENCH_BENCH_DIMS=64,128,256] scripts/h200/bwd_env_ab.sh TESTS VAR "V0 V1 ..." OUT_LOG
set -uo pipefail
bin=$1 var=$2 values=$3 log=$4
rounds=${ROUNDS:-3}
: > "$log"
for r in $(seq 1 "$rounds"); do
  for v in $values; do
    env "$var=$v" "$bin" --gtest_also_run_disabled_tests --gtest_filter='*Fa2BwdBench*' 2>&1 |
      grep FA2BWDBENCH | sed "s/^/$v /" >> "$log"
  done
done
python3 "$(dirname "$0")/bwd_bench_table.py" "$log" "$values"
