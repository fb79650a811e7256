#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Issue 42: the environment variables that override a launcher's choice are one table
# (kernels/common/env_knobs.h) that the kernels read through and the docs list; a sweep run
# under one records it (tool.overrides) and says so; compare notes it; merge refuses shards run
# under different ones. $1: fa2bench, $2: source tree.
source "$(dirname "$0")/lib.sh"
KNOBS="$SRC/kernels/common/env_knobs.h"

# No launcher reads the environment except through the table.
stray=$(grep -rn 'getenv' "$SRC/kernels" | grep -v '^'"$KNOBS"':')
[ -z "$stray" ] || fail "kernels read the environment outside env_knobs.h: $stray"
# Every knob of the table is documented.
names=$(grep -oE '"FA2BENCH_[A-Z0-9_]+"' "$KNOBS" | tr -d '"' | sort -u)
[ "$(echo "$names" | wc -l)" -ge 5 ] || fail "found too few knobs in $KNOBS: $names"
for n in $names; do
  grep -qF "\`$n" "$SRC/docs/methods.md" || fail "docs/methods.md does not document $n"
done

CFG="$SRC/configs/ci_cpu.json"
FILTER='-T64-D64/'
run() { "$BIN" sweep --config "$CFG" --target cpu --quiet --filter "$FILTER" --set 'checks=[]' "$@"; }
# The shipped paths: an empty record, no note.
expect_exit 0 run --out "$TMP/plain"
grep -q "environment overrides" "$TMP/out" && fail "a plain run names overrides"
python3 - "$TMP/plain/results.json" <<'PY' || fail "plain run's tool.overrides"
import json, sys
t = json.load(open(sys.argv[1]))["tool"]
assert t["overrides"] == {}, t
PY
# Under two overrides: both recorded with their values, and named on stderr.
env FA2BENCH_FA3_PERSISTENT=0 FA2BENCH_CPU_THREADS=1 "$BIN" sweep --config "$CFG" --target cpu \
  --quiet --filter "$FILTER" --set 'checks=[]' --out "$TMP/knob" >"$TMP/out" 2>&1 || { cat "$TMP/out"; fail "sweep"; }
expect_output "environment overrides set: FA2BENCH_CPU_THREADS=1 FA2BENCH_FA3_PERSISTENT=0"
python3 - "$TMP/knob/results.json" <<'PY' || fail "overridden run's tool.overrides"
import json, sys
t = json.load(open(sys.argv[1]))["tool"]
assert t["overrides"] == {"FA2BENCH_CPU_THREADS": "1", "FA2BENCH_FA3_PERSISTENT": "0"}, t
PY
expect_exit 0 "$BIN" compare "$TMP/plain/results.json" "$TMP/knob/results.json"
expect_output "note: environment overrides"
expect_output "FA2BENCH_FA3_PERSISTENT"
# Shards of one sweep run under different overrides do not merge.
expect_exit 0 run --shard 0/2 --out "$TMP/s0"
env FA2BENCH_FA2_SPLITS=3 "$BIN" sweep --config "$CFG" --target cpu --quiet --filter "$FILTER" --set 'checks=[]' \
  --shard 1/2 --out "$TMP/s1" >/dev/null 2>&1
[ -f "$TMP/s1/results.json" ] || fail "the second shard wrote no results"
expect_exit 2 "$BIN" merge "$TMP/s0/results.json" "$TMP/s1/results.json" --out "$TMP/merged.json"
expect_output "environment overrides"
echo "PASS"
