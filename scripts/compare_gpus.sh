#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The H100-vs-H200 comparison tables: for every config with a committed fa2bench run on both
# GPUs (results/h100/X and results/h200/X), `fa2bench compare` of the two, raw and
# --normalize peak (each card's own dense peak), as Markdown under results/compare/.
#   scripts/compare_gpus.sh [FA2BENCH] [BASE_GPU] [NEW_GPU]   (default: build/fa2bench h200 h100)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/fa2bench}
base=${2:-h200}
new=${3:-h100}
out=results/compare
mkdir -p "$out"
n=0
for dir in results/"$new"/*/; do
  name=$(basename "$dir")
  a=results/$base/$name/results.json
  b=results/$new/$name/results.json
  [ -f "$a" ] && [ -f "$b" ] || continue
  # Transformer-step results compare on their own columns, raw only (compare has no
  # --normalize for them).
  norms="raw peak"
  grep -q '"fa2bench-model-results"' "$b" && norms="raw"
  for norm in $norms; do
    flags=()
    suffix=""
    if [ $norm = peak ]; then flags=(--normalize peak); suffix=".peak"; fi
    if ! "$bin" compare "$a" "$b" "${flags[@]}" --format md \
      --out "$out/${name}_${base}_vs_${new}${suffix}.md" >/dev/null 2>"$out/.err"; then
      # compare exits 1 when it finds regressions: the table is still written and wanted.
      [ -s "$out/${name}_${base}_vs_${new}${suffix}.md" ] || { cat "$out/.err" >&2; exit 1; }
    fi
    n=$((n + 1))
  done
done
rm -f "$out/.err"
echo "wrote $n tables under $out/"
