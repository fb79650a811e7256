#!/usr/bin/env bash
# The fa2 instantiation units match the one head-dim list (kernels/fa2/fa2_head_dims.h), and
# the generator's --check catches a list that changed without regenerating.
#   instantiation_units.sh FA2BENCH_BINARY SOURCE_DIR
set -euo pipefail
src=$2
python3 "$src/kernels/fa2/inst/gen_units.py" --check
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$src/kernels/fa2" "$tmp/fa2"
sed -i 's/HeadDimList<32, /HeadDimList<16, 32, /' "$tmp/fa2/fa2_head_dims.h"
if out=$(python3 "$tmp/fa2/inst/gen_units.py" --check); then
  echo "FAIL: --check passed with a head dim added to the list" >&2
  exit 1
fi
grep -q "fa2_fwd_bf16_d16.cu" <<<"$out" || { echo "FAIL: missing unit not named: $out" >&2; exit 1; }
python3 "$tmp/fa2/inst/gen_units.py"
[ -f "$tmp/fa2/inst/fa2_bwd_fp16_d16.cu" ] || { echo "FAIL: unit not generated" >&2; exit 1; }
python3 "$tmp/fa2/inst/gen_units.py" --check
echo "instantiation units: ok"
