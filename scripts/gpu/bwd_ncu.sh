#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Nsight Compute profile of the fa2 backward main kernel on one shape (device only): the full
# section set of one launch after warm-up, its details page and per-SASS-line source counters.
#   scripts/h200/bwd_ncu.sh BUILD_DIR LOG_DIR NAME "B,H,T,D,causal"
set -uo pipefail
build=$1 logs=$2 name=$3 shape=$4
mkdir -p "$logs"
FA2BENCH_BENCH_SHAPE=$shape timeout 240 ncu --clock-control none --kernel-name regex:fa2_bwd_kernel \
  --launch-skip 3 --launch-count 1 --set full --import-source no -f -o "$logs/$name" \
  "$build/tests/fa2bench_gpu_tests" --gtest_also_run_disabled_tests \
  --gtest_filter='*Fa2BwdBench*' > "$logs/$name.log" 2>&1
echo "ncu $name: exit $?"
ncu --import "$logs/$name.ncu-rep" --page details > "$logs/${name}_details.txt" 2>&1
ncu --import "$logs/$name.ncu-rep" --page source --csv --print-source sass \
  > "$logs/${name}_sass.csv" 2>&1
grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|Registers Per|Achieved Occ|Warp Cycles Per Issued" \
  "$logs/${name}_details.txt" | head -12
