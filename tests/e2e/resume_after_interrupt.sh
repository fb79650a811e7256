# SPDX-License-Identifier: Apache-2.0
# sweep --resume: finished cases are kept (not run again), the rest run, the reports cover
# all; an incomplete last jsonl line is ignored with a warning; a changed config is refused.
source "$(dirname "$0")/lib.sh"
CFG="$SRC/tests/data/tiny_cpu.json"
D="$TMP/run"
# A first sweep that finished only some cases (as if interrupted): the T=16 ones.
expect_exit 0 "$BIN" sweep --config "$CFG" --target cpu --quiet --filter 'T16-' --out "$D"
[ "$(wc -l < "$D/results.jsonl")" -eq 4 ] || fail "first run: expected 4 jsonl lines"
[ -s "$D/sweep.json" ] || fail "no sweep.json manifest"
cp "$D/results.jsonl" "$TMP/first.jsonl"
# Resume the whole config into the same directory.
expect_exit 0 "$BIN" sweep --config "$CFG" --target cpu --resume "$D"
expect_output "4 case(s) already finished, 4 to run"
[ "$(wc -l < "$D/results.jsonl")" -eq 8 ] || fail "resumed: expected 8 jsonl lines"
# The finished cases were not run again: their lines are byte for byte the first run's.
head -n 4 "$D/results.jsonl" | cmp -s - "$TMP/first.jsonl" || fail "finished cases were rewritten"
python3 - "$D/results.json" "$D/results.jsonl" "$TMP/first.jsonl" <<'PY' || fail "resumed results"
import json, sys
r = json.load(open(sys.argv[1]))
lines = [json.loads(l) for l in open(sys.argv[2])]
first = [json.loads(l) for l in open(sys.argv[3])]
ids = [c["id"] for c in r["cases"]]
assert len(ids) == 8 and len(set(ids)) == 8, ids
assert r["interrupted"] is False
assert all(c["status"] == "ok" for c in r["cases"])
# config order: T16 and T48 interleave as the grid expands, not "finished first"
assert [c["params"]["T_q"] for c in r["cases"]] == [c["params"]["T_q"] for c in r["cases"]]
by_id = {c["id"]: c for c in r["cases"]}
for c in first:  # the kept results are the first run's, timings included
    assert by_id[c["id"]]["time_ms"] == c["time_ms"], c["id"]
assert sorted(c["id"] for c in lines) == sorted(ids)
PY
# Nothing left: a second resume runs nothing, keeps everything.
expect_exit 0 "$BIN" sweep --resume "$D"
expect_output "8 case(s) already finished, 0 to run"
# Killed while writing a line: the incomplete last line is ignored (with a warning), its case
# runs again, and the file is whole afterwards.
head -n 6 "$D/results.jsonl" > "$TMP/cut.jsonl"
sed -n 7p "$D/results.jsonl" | head -c 100 >> "$TMP/cut.jsonl"
cp "$TMP/cut.jsonl" "$D/results.jsonl"
expect_exit 0 "$BIN" sweep --resume "$D"
expect_output "line 7 is incomplete"
expect_output "6 case(s) already finished, 2 to run"
python3 - "$D/results.jsonl" <<'PY' || fail "jsonl after resuming a cut line"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert len(lines) == 8 and len({c["id"] for c in lines}) == 8
PY
# A changed config is refused (exit 2), via --set, --backends or --inputs alike.
expect_exit 2 "$BIN" sweep --config "$CFG" --target cpu --resume "$D" --set measure.max_samples=4
expect_output "config changed since that sweep started"
expect_exit 2 "$BIN" sweep --config "$CFG" --target cpu --resume "$D" --backends fa2
expect_output "config changed"
expect_exit 2 "$BIN" sweep --config "$CFG" --target cpu --resume "$D" --inputs nan
expect_output "config changed"
sed 's/"seed": 11/"seed": 12/' "$CFG" > "$TMP/edited.json"
expect_exit 2 "$BIN" sweep --config "$TMP/edited.json" --target cpu --resume "$D"
expect_output "config changed"
# Not a sweep directory; --out elsewhere.
expect_exit 2 "$BIN" sweep --resume "$TMP/nothing"
expect_output "sweep.json"
expect_exit 2 "$BIN" sweep --resume "$D" --out "$TMP/elsewhere"
expect_output "--resume"
echo "ok"
