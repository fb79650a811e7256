#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A/B timing of two fa2 backward builds in one device call: the disabled Fa2BwdBench harness
# of two fa2bench_gpu_tests binaries (A, the base; B, the candidate), interleaved A B A B ...
# for ROUNDS rounds so that clock and thermal drift fall on both alike, then one line per shape
# with each side's median fwd+bwd and backward time over the rounds and B / A
# (bwd_bench_table.py).
#   [ROUNDS=3] [FA2BENCH_BENCH_DIMS=64,128,256] scripts/h200/bwd_ab.sh A_TESTS B_TESTS OUT_LOG
set -uo pipefail
a=$1 b=$2 log=$3
rounds=${ROUNDS:-3}
: > "$log"
for r in $(seq 1 "$rounds"); do
  for side in A B; do
    bin=$a
    [ "$side" = B ] && bin=$b
    "$bin" --gtest_also_run_disabled_tests --gtest_filter='*Fa2BwdBench*' 2>&1 |
      grep FA2BWDBENCH | sed "s/^/$side /" >> "$log"
  done
done
python3 "$(dirname "$0")/bwd_bench_table.py" "$log" "A B"
