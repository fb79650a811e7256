#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Nsight Compute side by side: our fa2 backward main kernel and PyTorch flash's backward kernel
# on the same shape (device only). Per shape: both reports' details pages, and one line per
# kernel with its duration, registers, occupancy, issued instructions and cycles per issue, and
# both kernels' stall reasons (scripts/ncu_sass_stalls.py on their per-SASS-line counters).
#   scripts/h200/bwd_ncu_vs_torch.sh BUILD_DIR LOG_DIR "B,H,T,D,causal" ...
set -uo pipefail
cd "$(dirname "$0")/../.."
build=$1 logs=$2
shift 2
mkdir -p "$logs"
for shape in "$@"; do
  name=$(echo "$shape" | tr ',' '_')
  scripts/h200/bwd_ncu.sh "$build" "$logs" "ours_$name" "$shape"
  IFS=, read -r b h t d causal <<< "$shape"
  timeout 240 ncu --clock-control none --kernel-name regex:flash_bwd_dq_dk_dv --launch-skip 3 \
    --launch-count 1 --set full --import-source no -f -o "$logs/torch_$name" \
    python3 scripts/h200/torch_bwd_shape.py "$b" "$h" "$t" "$d" "$causal" > "$logs/torch_$name.log" 2>&1
  echo "ncu torch_$name: exit $?"
  ncu --import "$logs/torch_$name.ncu-rep" --page details > "$logs/torch_${name}_details.txt" 2>&1
  ncu --import "$logs/torch_$name.ncu-rep" --page source --csv --print-source sass \
    > "$logs/torch_${name}_sass.csv" 2>&1
  for who in ours torch; do
    echo "== $who $shape"
    grep -E "^  [a-z_]|Duration|Registers Per|Achieved Occ|Executed Ipc A|Issue Slots Busy|Warp Cycles Per Issued|Executed Instructions  |Shared Memory Configuration Size|Dynamic Shared|Block Size|Grid Size" \
      "$logs/${who}_${name}_details.txt" | head -16
    # Where the warps wait (the stall reasons' shares of the sampled cycles).
    python3 scripts/ncu_sass_stalls.py "$logs/${who}_${name}_sass.csv" --top 0 2>&1 | head -14
  done
done
