#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Issue 41, defect 2: a transformer sweep claims --out as an attention sweep does: it refuses a
# folder holding another sweep's files (or moves them aside with --overwrite), a folder another
# sweep holds the lock of, removes stale reports before its first step, and on SIGTERM stops
# between steps with exit 130 and results marked interrupted. $1: fa2bench, $2: source tree.
source "$(dirname "$0")/../lib.sh"
MODEL=("$BIN" sweep --config "$SRC/configs/cpu_model_step.json" --target cpu
  --set 'measure.min_samples=1' --set 'measure.max_samples=1' --set 'measure.warmup=0')
TINY=(--set 'sweeps.0.grid.T=[33]' --set 'sweeps.0.grid.recompute=["off"]')

# An attention sweep's folder is not silently replaced.
expect_exit 0 "$BIN" sweep --config "$SRC/configs/ci_cpu.json" --target cpu --out "$TMP/att" \
  --set 'measure.min_samples=1' --set 'measure.max_samples=1'
cp "$TMP/att/results.json" "$TMP/att_results.json"
expect_exit 2 "${MODEL[@]}" "${TINY[@]}" --out "$TMP/att"
expect_output "holds the files of an earlier sweep"
cmp -s "$TMP/att/results.json" "$TMP/att_results.json" || fail "the attention results changed"
# ... nor is a transformer sweep's, by either kind.
expect_exit 0 "${MODEL[@]}" "${TINY[@]}" --out "$TMP/model"
expect_exit 2 "${MODEL[@]}" "${TINY[@]}" --out "$TMP/model"
expect_output "holds the files of an earlier sweep"
expect_exit 2 "$BIN" sweep --config "$SRC/configs/ci_cpu.json" --target cpu --out "$TMP/model"
expect_output "holds the files of an earlier sweep"
# --overwrite moves them aside.
expect_exit 0 "${MODEL[@]}" "${TINY[@]}" --out "$TMP/model" --overwrite
expect_output "moved the earlier sweep's files to"
ls -d "$TMP"/model/previous-* >/dev/null 2>&1 || fail "no previous-* folder"

# The lock: another process holding it keeps the sweep out.
if command -v flock >/dev/null 2>&1; then
  mkdir -p "$TMP/locked"
  flock "$TMP/locked/.fa2bench.lock" sleep 30 &
  holder=$!
  sleep 0.5
  expect_exit 2 "${MODEL[@]}" "${TINY[@]}" --out "$TMP/locked"
  expect_output "is in use by another sweep"
  kill "$holder" 2>/dev/null
  wait "$holder" 2>/dev/null
fi

# SIGTERM between steps: 130, results.json marked interrupted, and `check` fails it. The
# earlier run's report is gone before the first step, so no stale results.json remains.
expect_exit 0 "${MODEL[@]}" "${TINY[@]}" --out "$TMP/term"
stdbuf -oL "${MODEL[@]}" --out "$TMP/term" --overwrite >"$TMP/term.out" 2>&1 &
pid=$!
# The table's header is printed once the handlers are in place.
for _ in $(seq 1 200); do grep -q "tokens/s" "$TMP/term.out" 2>/dev/null && break; sleep 0.05; done
grep -q "tokens/s" "$TMP/term.out" || fail "the sweep did not start"
[ -e "$TMP/term/results.json" ] && fail "the earlier results.json outlived the start of the sweep"
kill -TERM "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 130 ] || { cat "$TMP/term.out" >&2; fail "SIGTERM gave exit $rc, not 130"; }
python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["interrupted"] is True' \
  "$TMP/term/results.json" || fail "results.json is not marked interrupted"
expect_exit 1 "$BIN" check "$TMP/term/results.json"
expect_output "(interrupted)"
echo "ok"
