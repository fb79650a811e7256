#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Our fa3 against the FlashAttention project's flash-attn-4 (fa4), per GPU: for every config
# with a committed fa2bench run and an fa4 run on the same GPU (results/<gpu>/X/results.json,
# results/<gpu>/peers/fa4/X/flash_attn.json, from one session on one machine), `fa2bench
# compare --pair fa3=fa4` as Markdown under results/compare/ (time × < 1: fa3 is faster).
#   scripts/compare_peers.sh [FA2BENCH]   (default: build/fa2bench)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/fa2bench}
out=results/compare
mkdir -p "$out"
n=0
for peer in results/*/peers/fa4/*/flash_attn.json; do
  [ -f "$peer" ] || continue
  gpu=$(echo "$peer" | cut -d/ -f2)
  name=$(basename "$(dirname "$peer")")
  ours=results/$gpu/$name/results.json
  [ -f "$ours" ] || continue
  table="$out/${name}_${gpu}_fa3_vs_fa4.md"
  if ! "$bin" compare "$peer" "$ours" --pair fa3=fa4 --format md --out "$table" \
      >/dev/null 2>"$out/.err"; then
    # compare exits 1 where fa3 is slower on a shape: the table is still written and wanted.
    [ -s "$table" ] || { cat "$out/.err" >&2; exit 1; }
  fi
  n=$((n + 1))
done
rm -f "$out/.err"
echo "wrote $n tables under $out/"
