# SPDX-License-Identifier: Apache-2.0
# --out belongs to one sweep at a time (issue 13, item 2; item 7's isolated temp folders): a
# second sweep or resume into it is refused naming the holder's pid; a new sweep never starts
# beside an earlier sweep's files unless --overwrite moves them aside; no report outlives its
# run; a sweep killed with -9 leaves its isolated work folder in --out for the next to remove.
source "$(dirname "$0")/lib.sh"
FAULTY=${FA2BENCH_FAULTY:-$(dirname "$BIN")/tests/fa2bench_faulty}
[ -x "$FAULTY" ] || fail "test binary fa2bench_faulty not found (FA2BENCH_FAULTY)"
CFG="$SRC/tests/data/tiny_cpu.json"
ONE='T16-D32/fp16/causal'
D="$TMP/run"
HOLDER=""
cleanup() {  # the hung sweep and its case process, by pid
  if [ -n "$HOLDER" ]; then
    for child in $(pgrep -P "$HOLDER"); do kill -9 "$child" 2>/dev/null; done
    kill -9 "$HOLDER" 2>/dev/null
  fi
  rm -rf "$TMP"
}
trap cleanup EXIT

# A passing sweep leaves its reports (and the --junit/--summary-md files outside --out).
REPORTS=(--junit "$TMP/checks.xml" --summary-md "$TMP/checks.md")
expect_exit 0 "$BIN" sweep --config "$CFG" --target cpu --quiet --filter "$ONE" --out "$D" \
  "${REPORTS[@]}"
[ -s "$D/results.json" ] || fail "no results.json"
[ -s "$TMP/checks.xml" ] && [ -s "$TMP/checks.md" ] || fail "no --junit/--summary-md file"

# A new sweep into it is refused: the old reports would sit beside the new sweep.json.
expect_exit 2 "$BIN" sweep --config "$CFG" --target cpu --quiet --filter 'T48-' --out "$D"
expect_output "holds the files of an earlier sweep (sweep.json, results.jsonl, results.json"
expect_output "--overwrite"
grep -q "$ONE" "$D/sweep.json" || fail "the refused sweep touched sweep.json"

# --overwrite moves them aside first; this sweep hangs (faulty-hang, isolated) and holds --out.
"$FAULTY" sweep --config "$CFG" --target cpu --isolate --quiet --filter "$ONE" \
  --backends faulty-hang --out "$D" --overwrite "${REPORTS[@]}" > "$TMP/holder.log" 2>&1 &
HOLDER=$!
for _ in $(seq 1 300); do
  ls -d "$D"/.isolated-"$HOLDER" >/dev/null 2>&1 && break
  sleep 0.1
done
[ -d "$D/.isolated-$HOLDER" ] || { cat "$TMP/holder.log" >&2; fail "no .isolated-$HOLDER in --out"; }
ls "$D"/previous-*/results.json >/dev/null 2>&1 || fail "--overwrite did not keep the old results"
# While it runs, --out holds no report at all: none of the earlier sweep's, none of its own.
for f in "$D/results.json" "$D/results.csv" "$D/summary.md" "$TMP/checks.xml" "$TMP/checks.md"; do
  [ ! -e "$f" ] || fail "$f sits beside the running sweep's sweep.json"
done
grep -q faulty-hang "$D/sweep.json" || fail "sweep.json is not the running sweep's"
# check on the folder finds nothing to pass.
expect_exit 2 "$BIN" check "$D/results.json"

# A second sweep, or a resume, into the held --out: exit 2 with the holder's pid.
expect_exit 2 "$BIN" sweep --config "$CFG" --target cpu --quiet --out "$D" --overwrite
expect_output "is in use by another sweep (pid $HOLDER)"
expect_exit 2 "$FAULTY" sweep --resume "$D"
expect_output "is in use by another sweep (pid $HOLDER)"

# kill -9: the lock goes with the process; its work folder stays, in --out (not in /tmp).
children=$(pgrep -P "$HOLDER")
kill -9 "$HOLDER"
wait "$HOLDER" 2>/dev/null
for child in $children; do kill -9 "$child" 2>/dev/null; done
HOLDER=""
ls -d "$D"/.isolated-* >/dev/null 2>&1 || fail "kill -9 left no work folder in --out (was it in /tmp?)"
# Killed between start and end: no report of any run sits beside its sweep.json.
expect_exit 2 "$BIN" check "$D/results.json"
expect_output "cannot open"
# The next sweep into --out removes it and runs.
expect_exit 0 "$BIN" sweep --config "$CFG" --target cpu --quiet --filter "$ONE" --out "$D" \
  --overwrite --isolate
if ls -d "$D"/.isolated-* >/dev/null 2>&1; then fail "a stale .isolated-* folder was left"; fi
[ "$(ls -d "$D"/previous-* | wc -l)" -eq 2 ] || fail "expected two previous-* folders"
[ -s "$D/results.json" ] || fail "no results.json after the new sweep"

# A folder with only a lock file and unrelated files is free for a new sweep.
mkdir -p "$TMP/other" && touch "$TMP/other/.fa2bench.lock" "$TMP/other/notes.txt"
expect_exit 0 "$BIN" sweep --config "$CFG" --target cpu --quiet --filter "$ONE" --out "$TMP/other"
echo "ok"
