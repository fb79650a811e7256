#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ptxas register/spill report of every shipped fa2 and fa3 instantiation unit (forward and
# backward; fa3 for sm_90a), for the "0 bytes spill"
# rule of the kernel tables (needs only nvcc, no GPU):
#   scripts/ptxas_shipped.sh > results/h200/logs/ptxas_shipped_sm90.txt
# Exits 1 when any shipped kernel spills.
set -euo pipefail
cd "$(dirname "$0")/.."
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
echo "# $("$nvcc" --version | tail -1 | sed 's/Build //') -Xptxas -v, every shipped fa2 unit" \
  "(kernels/fa2/inst/fa2_{fwd,bwd}_*_d*.cu, -arch=sm_90) and fa3 unit" \
  "(kernels/fa3/inst/fa3_{fwd,bwd}_*_d*.cu, -arch=sm_90a) at commit" \
  "$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
spills=0
report_unit() {  # report_unit ARCH UNIT
  echo "== $2"
  local report
  report=$("$nvcc" -std=c++17 -O3 -arch="$1" -Ikernels -Isrc -Xptxas -v -c "$2" -o /dev/null 2>&1 |
    grep -E "Compiling entry function|registers|spill")
  echo "$report"
  if grep -qE "[1-9][0-9]* bytes spill" <<< "$report"; then spills=1; fi
}
for unit in kernels/fa2/inst/fa2_fwd_*_d*.cu kernels/fa2/inst/fa2_bwd_*_d*.cu; do
  report_unit sm_90 "$unit"
done
for unit in kernels/fa3/inst/fa3_fwd_*_d*.cu kernels/fa3/inst/fa3_bwd_*_d*.cu; do
  report_unit sm_90a "$unit"
done
exit $spills
