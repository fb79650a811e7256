#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# On the GPU machine: the seed configs with one more backend beside their own (issue 17 asks
# that both seed configs pass with fa3 added), each written by the tool under OUTDIR/<config>.
#   scripts/h200/seeds_with.sh BACKEND BUILD_DIR OUTDIR [CONFIG...]
#   (default configs: seed_notebook seed_article seed_training)
set -uo pipefail
cd "$(dirname "$0")/../.."
extra=$1 build=$2 outdir=$3
shift 3
configs=("$@")
[ ${#configs[@]} -eq 0 ] && configs=(seed_notebook seed_article seed_training)
for cfg in "${configs[@]}"; do
  mapfile -t backends < <(python3 -c "
import json, sys
c = json.load(open('configs/$cfg.json'))
names = c['sweeps'][0]['backends'] if 'sweeps' in c else c['backends']
print('\n'.join(names + ['$extra']))")
  mkdir -p "$outdir/$cfg"
  "$build/fa2bench" sweep --config "configs/$cfg.json" --backends "${backends[@]}" \
    --out "$outdir/$cfg" --quiet > "$outdir/$cfg/stdout.txt" 2>&1
  echo "== $cfg with ${backends[*]}: exit $?"
  tail -12 "$outdir/$cfg/stdout.txt"
  rm -f "$outdir/$cfg/.fa2bench.lock"
done
