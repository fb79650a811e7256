# SPDX-License-Identifier: Apache-2.0
# SIGINT/SIGTERM: the current case finishes (or, isolated, is abandoned), the reports are
# written with "interrupted": true, exit 130, the jsonl keeps every finished case; a second
# signal exits at once; the interrupted sweep resumes to completion.
source "$(dirname "$0")/lib.sh"
FAULTY=${FA2BENCH_FAULTY:-$(dirname "$BIN")/tests/fa2bench_faulty}
[ -x "$FAULTY" ] || fail "test binary fa2bench_faulty not found (FA2BENCH_FAULTY)"
CFG="$SRC/tests/data/tiny_cpu.json"
# wait_lines FILE N: waits (up to 60 s) until FILE has N lines.
wait_lines() {
  for _ in $(seq 600); do
    [ -f "$1" ] && [ "$(wc -l < "$1")" -ge "$2" ] && return 0
    sleep 0.1
  done
  fail "$1 never reached $2 line(s)"
}
run_bg() { "$@" >"$TMP/bg.out" 2>&1 & PID=$!; }
wait_rc() { wait "$PID"; RC=$?; }

# 1. SIGINT in process: slow cases (many samples), interrupted after the first finished.
D="$TMP/int"
SLOW=(--set 'grid.T=[256]' --set measure.min_samples=400 --set measure.max_samples=400
      --set measure.max_time_s=60)
run_bg "$BIN" sweep --config "$CFG" --target cpu --out "$D" "${SLOW[@]}"
wait_lines "$D/results.jsonl" 1
kill -INT "$PID"
wait_rc
[ "$RC" -eq 130 ] || { cat "$TMP/bg.out" >&2; fail "SIGINT: expected exit 130, got $RC"; }
grep -q "interrupted" "$TMP/bg.out" || fail "no interrupted message"
python3 - "$D/results.json" "$D/results.jsonl" <<'PY' || fail "interrupted reports"
import json, sys
r = json.load(open(sys.argv[1]))
lines = [json.loads(l) for l in open(sys.argv[2])]
assert r["interrupted"] is True
assert 1 <= len(r["cases"]) < 4, len(r["cases"])
assert [c["id"] for c in r["cases"]] == [c["id"] for c in lines]
PY
# ... and it resumes to completion.
expect_exit 0 "$BIN" sweep --resume "$D" --quiet
python3 -c "
import json,sys; r=json.load(open(sys.argv[1])); assert len(r['cases'])==4 and not r['interrupted']
" "$D/results.json" || fail "resumed run incomplete"

# 2. SIGTERM with isolated workers: a hanging case is abandoned, not waited for.
D="$TMP/term"
run_bg "$FAULTY" sweep --config "$CFG" --target cpu --out "$D" --cpu-workers 2 \
  --backends faulty-hang,fa2
wait_lines "$D/results.jsonl" 1
sleep 0.5
kill -TERM "$PID"
wait_rc
[ "$RC" -eq 130 ] || { cat "$TMP/bg.out" >&2; fail "SIGTERM (isolated): expected 130, got $RC"; }
python3 - "$D/results.json" <<'PY' || fail "isolated interrupted reports"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["interrupted"] is True
assert all(c["backend"] == "cpu-flash" for c in r["cases"]), [c["id"] for c in r["cases"]]
PY

# 3. A second signal exits at once, even while a case hangs in process.
D="$TMP/twice"
run_bg "$FAULTY" sweep --config "$CFG" --target cpu --out "$D" --backends fa2,faulty-hang \
  --filter 'T16-D32/fp16/causal'
for _ in $(seq 600); do grep -q "faulty-hang" "$TMP/bg.out" && break; sleep 0.1; done
sleep 0.3
kill -INT "$PID"
sleep 0.5
kill -0 "$PID" 2>/dev/null || fail "first signal ended the sweep during a case"
kill -INT "$PID"
wait_rc
[ "$RC" -eq 130 ] || { cat "$TMP/bg.out" >&2; fail "second SIGINT: expected 130, got $RC"; }
[ "$(wc -l < "$D/results.jsonl")" -eq 1 ] || fail "jsonl should hold the one finished case"
python3 -c "import json,sys; [json.loads(l) for l in open(sys.argv[1])]" "$D/results.jsonl" \
  || fail "jsonl not intact"
echo "ok"
