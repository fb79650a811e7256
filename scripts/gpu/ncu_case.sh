#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Nsight Compute profile of one kernel launch of one case (device only): the full section set
# of the one launch --profile-once makes (no warm-ups, no verification run: nothing to skip;
# ncu's replay flushes the caches before each pass, so no warm-up is needed), its details
# page and per-SASS-line source counters (stall reasons per instruction), for reading side by
# side with the kernel's code.
#   scripts/h200/ncu_case.sh BIN CONFIG BACKEND KERNEL_REGEX CASE_ID OUT_DIR NAME
#   e.g. scripts/h200/ncu_case.sh /tmp/b/fa2bench configs/perf_fwd.json fa3 fa3_fwd_kernel \
#          B2-H16-T8192-D128/bf16/causal results/h200/profile/fa3 fwd_d128_causal
set -uo pipefail
bin=$1 config=$2 backend=$3 kernel=$4 case_id=$5 out=$6 name=$7
mkdir -p "$out"
timeout 300 ncu --clock-control none --kernel-name "regex:$kernel" --launch-skip 0 --launch-count 1 \
  --set full --import-source no -f -o "$out/$name" \
  "$bin" sweep --config "$config" --target cuda --no-isolate --quiet --backends "$backend" \
  --filter "^$backend/$case_id\$" --out "/tmp/ncu_sweep_$name" --overwrite --profile-once \
  > "$out/$name.log" 2>&1
echo "ncu $name: exit $?"
ncu --import "$out/$name.ncu-rep" --page details > "$out/${name}_details.txt" 2>&1
ncu --import "$out/$name.ncu-rep" --page source --csv --print-source sass > "$out/${name}_sass.csv" 2>&1
rm -f "$out/$name.ncu-rep"
grep -E "Duration|Compute \(SM\) Throughput|Registers Per|Warp Cycles Per Issued|Issue Slots Busy|Achieved Occupancy" \
  "$out/${name}_details.txt" | head -10
