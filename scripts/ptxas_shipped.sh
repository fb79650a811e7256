#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ptxas register/spill report of every shipped fa2 and fa3 instantiation unit (forward and
# backward; fa3 for sm_90a), for the "0 bytes spill"
# rule of the kernel tables (needs only nvcc, no GPU):
#   scripts/ptxas_shipped.sh > ptxas_shipped_sm90.txt
# Exits 1 when any shipped kernel spills.
set -euo pipefail
cd "$(dirname "$0")/.."
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
echo "# $("$nvcc" --version | tail -1 | sed 's/Build //') -Xptxas -v, every shipped fa2 unit" \
  "(kernels/fa2/inst/fa2_{fwd,bwd}_*_d*.cu, -arch=sm_90) and fa3 unit" \
  "(kernels/fa3/inst/fa3_{fwd,bwd}_*_d*.cu, -arch=sm_90a) at commit" \
  "$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
# Units compile in parallel (JOBS, default every core; one unit takes up to a minute) into one
# report file each, printed in the units' order.
reports=$(mktemp -d)
trap 'rm -rf "$reports"' EXIT
report_unit() {  # report_unit ARCH UNIT: the unit's ptxas lines into $reports
  local out
  out="$reports/$(tr / _ <<< "$2")"
  { echo "== $2"
    "$nvcc" -std=c++17 -O3 -arch="$1" -Ikernels -Isrc -Xptxas -v -c "$2" -o /dev/null 2>&1 |
      grep -E "Compiling entry function|registers|spill"
  } > "$out.part"
  mv "$out.part" "$out"
}
export -f report_unit
export nvcc reports
fa2_units=(kernels/fa2/inst/fa2_fwd_*_d*.cu kernels/fa2/inst/fa2_bwd_*_d*.cu)
fa3_units=(kernels/fa3/inst/fa3_fwd_*_d*.cu kernels/fa3/inst/fa3_bwd_*_d*.cu)
{ printf 'sm_90 %s\n' "${fa2_units[@]}"; printf 'sm_90a %s\n' "${fa3_units[@]}"; } |
  xargs -P "${JOBS:-$(nproc)}" -L 1 bash -c 'report_unit "$0" "$1"'
spills=0
for unit in "${fa2_units[@]}" "${fa3_units[@]}"; do
  report="$reports/$(tr / _ <<< "$unit")"
  # A unit that failed to compile leaves no register line: that is an error, not "no spill".
  grep -q registers "$report" 2> /dev/null || { echo "ptxas_shipped: no report for $unit" >&2; exit 2; }
  cat "$report"
  if grep -qE "[1-9][0-9]* bytes spill" "$report"; then spills=1; fi
done
exit $spills
