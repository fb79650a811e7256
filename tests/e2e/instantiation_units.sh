#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The fa2 and fa3 instantiation units match their one head-dim lists (kernels/common/
# head_dims.h, kernels/fa3/fa3_traits.h) and the generated wgmma wrappers match their
# generator, and fa2's tuning units and variants its tile table (fa2_dev_tiles.cuh); each
# generator's --check catches a list that changed without regenerating.
#   instantiation_units.sh FA2BENCH_BINARY SOURCE_DIR
set -euo pipefail
src=$2
python3 "$src/kernels/fa2/inst/gen_units.py" --check
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$src/kernels/fa2" "$tmp/fa2"
cp -r "$src/kernels/common" "$tmp/common"  # fa2's list is in common/head_dims.h
sed -i 's/HeadDimList<32, /HeadDimList<16, 32, /' "$tmp/common/head_dims.h"
if out=$(python3 "$tmp/fa2/inst/gen_units.py" --check); then
  echo "FAIL: --check passed with a head dim added to the list" >&2
  exit 1
fi
grep -q "fa2_fwd_bf16_d16.cu" <<<"$out" || { echo "FAIL: missing unit not named: $out" >&2; exit 1; }
python3 "$tmp/fa2/inst/gen_units.py"
[ -f "$tmp/fa2/inst/fa2_bwd_fp16_d16.cu" ] || { echo "FAIL: unit not generated" >&2; exit 1; }
python3 "$tmp/fa2/inst/gen_units.py" --check
python3 "$src/kernels/fa3/inst/gen_units.py" --check
python3 "$src/kernels/hopper/gen_wgmma_ops.py" --check
cp -r "$src/kernels/fa3" "$tmp/fa3"
sed -i 's/HeadDimList<64, /HeadDimList<32, 64, /' "$tmp/fa3/fa3_traits.h"
if out=$(python3 "$tmp/fa3/inst/gen_units.py" --check 2>&1); then
  echo "FAIL: fa3 --check passed with a head dim added to the list" >&2
  exit 1
fi
grep -q "fa3_fwd_bf16_d32.cu" <<<"$out" || { echo "FAIL: missing fa3 unit not named: $out" >&2; exit 1; }
cp -r "$src/kernels/hopper" "$tmp/hopper"
sed -i 's/^WIDTHS = \[32, /WIDTHS = [16, 32, /' "$tmp/hopper/gen_wgmma_ops.py"
if python3 "$tmp/hopper/gen_wgmma_ops.py" --check 2>/dev/null; then
  echo "FAIL: wgmma --check passed with a width added" >&2
  exit 1
fi
# fa2's tuning tiles: one table (fa2_dev_tiles.cuh) the units and the variant list follow.
python3 "$src/kernels/fa2/inst/dev/gen_dev_units.py" --check
sed -i 's|^template <> struct Tile<256, 9> .*|&\ntemplate <> struct Tile<256, 10> : Fa2TraitsBase<256, 4, 1, 32, true, 2, false> {};|' \
  "$tmp/fa2/fa2_dev_tiles.cuh"
if out=$(python3 "$tmp/fa2/inst/dev/gen_dev_units.py" --check 2>&1); then
  echo "FAIL: dev --check passed with a tile added to the table" >&2
  exit 1
fi
grep -q "fa2_fwd_fp16_d256_t10_dev_variants.cu" <<<"$out" ||
  { echo "FAIL: missing dev unit not named: $out" >&2; exit 1; }
python3 "$tmp/fa2/inst/dev/gen_dev_units.py"
python3 "$tmp/fa2/inst/dev/gen_dev_units.py" --check
sed -i 's|{256, 9, kHead|{256, 11, kHead|' "$tmp/fa2/inst/fa2_fwd_dev_variants.cu"
if out=$(python3 "$tmp/fa2/inst/dev/gen_dev_units.py" --check 2>&1); then
  echo "FAIL: dev --check passed with a variant naming no tile" >&2
  exit 1
fi
grep -q "Tile<256, 11>" <<<"$out" || { echo "FAIL: stray variant not named: $out" >&2; exit 1; }
echo "instantiation units: ok"
