# SPDX-License-Identifier: Apache-2.0
# compare --pair end to end: two backends matched by shape from two files and from one, the
# geomean per pair and head dim, exit codes, every output file, and --pair errors (exit 2, one
# line naming the value and the backends the files have).
source "$(dirname "$0")/lib.sh"
D="$SRC/tests/data/compare"
PAIRS=(--pair fa2=torch-flash --pair fa2=torch-cudnn)

# Two files, every output at once. fa2 is 21% slower than torch-flash on one shape: exit 1
# with --fail-on-regression.
expect_exit 1 "$BIN" compare "$D/pair_peer.json" "$D/pair_ours.json" "${PAIRS[@]}" \
  --fail-on-regression --format md --out "$TMP/pairs.md" --junit "$TMP/junit.xml" \
  --summary-md "$TMP/summary.md"
expect_output "1 regression (1 slower, 0 not ok where the BASE backend is)"
for want in "| new backend | base backend | shape |" \
  "| fa2 | torch-flash | B1-H32-T2048-D128/fp16/causal |" "**slower** ❌" \
  "### Geometric mean per pair and head dim" \
  "| fa2 vs torch-flash | 64 | 2 | 0.632x | 1.581x |" \
  "| fa2 vs torch-flash | 128 | 2 | 1.100x | 0.909x |" \
  "| fa2 vs torch-flash | all | 4 | 0.834x | 1.199x |" \
  "| fa2 vs torch-cudnn | all | 4 | 1.000x | 1.000x |" \
  "- only in BASE: \`torch-flash/B1-H32-T8192-D128/fp16/causal\` (no fa2 case of this shape)" \
  "- only in NEW: \`fa2/B1-H32-T1024-D256/fp16/causal\` (no torch-cudnn case of this shape)"; do
  grep -qF -- "$want" "$TMP/pairs.md" || { cat "$TMP/pairs.md" >&2; fail "pair md lacks: $want"; }
done
grep -qF "fa2=torch-flash/B1-H32-T2048-D128/fp16/causal" "$TMP/summary.md" ||
  fail "summary lacks the regression"
python3 - "$TMP/junit.xml" <<'PY' || fail "pair JUnit"
import sys, xml.etree.ElementTree as ET
cases = ET.parse(sys.argv[1]).getroot().findall(".//testcase")
# Issue 13: the shape only in BASE fails too, as a testcase of class fa2bench.compare.gate.
gate = [c for c in cases if c.get("classname") == "fa2bench.compare.gate"]
assert len(gate) == 1 and "torch-flash/B1-H32-T8192-D128" in gate[0].get("name"), gate
cases = [c for c in cases if c not in gate]
assert len(cases) == 8, len(cases)
assert {c.get("classname") for c in cases} == {"fa2bench.compare.fa2=torch-flash",
                                               "fa2bench.compare.fa2=torch-cudnn"}
failed = [(c.get("classname"), c.get("name")) for c in cases if c.find("failure") is not None]
assert failed == [("fa2bench.compare.fa2=torch-flash", "B1-H32-T2048-D128/fp16/causal")], failed
PY
# Without --fail-on-regression the same comparison exits 0.
expect_exit 0 "$BIN" compare "$D/pair_peer.json" "$D/pair_ours.json" "${PAIRS[@]}"
expect_output "fa2 vs torch-flash  128      2  1.100x"
expect_output "verdicts: 5 same, 2 faster, 1 slower"

# One file holding both sides gives the same comparison; --pair may come before the files.
expect_exit 0 "$BIN" compare "${PAIRS[@]}" "$D/pair_both.json" "$D/pair_both.json" \
  --format json --out "$TMP/both.json"
expect_exit 0 "$BIN" compare "$D/pair_peer.json" "$D/pair_ours.json" "${PAIRS[@]}" \
  --format json --out "$TMP/two.json"
python3 - "$TMP/both.json" "$TMP/two.json" <<'PY' || fail "pair json"
import json, sys
both, two = (json.load(open(p)) for p in sys.argv[1:])
assert both["pairs"] == [{"new": "fa2", "base": "torch-flash"}, {"new": "fa2", "base": "torch-cudnn"}]
assert both["cases"] == two["cases"]
assert both["geomean"] == two["geomean"]
assert [(g["base_backend"], g["D"], g["cases"]) for g in both["geomean"]] == [
    ("torch-flash", 64, 2), ("torch-flash", 128, 2), ("torch-flash", None, 4),
    ("torch-cudnn", 64, 2), ("torch-cudnn", 128, 2), ("torch-cudnn", None, 4)]
assert both["counts"]["regressions"] == 1 and both["counts"]["only_base"] == 1
assert both["only_new"][1] == {"id": "fa2/B1-H32-T1024-D256/fp16/causal",
                               "new_backend": "fa2", "base_backend": "torch-cudnn"}
PY
expect_exit 0 "$BIN" compare "$D/pair_both.json" "$D/pair_both.json" --pair fa2=torch-cudnn \
  --format csv
expect_output "id,new_backend,base_backend,shape,verdict,"
expect_output "fa2=torch-cudnn/B1-H32-T1024-D64/fp16/causal,fa2,torch-cudnn,B1-H32-T1024-D64/fp16/causal,same,false,"

# The committed H200 results: our fa2 against PyTorch's flash backend, every shape matched.
R="$SRC/results/h200"
if [ -s "$R/peers/perf_fwd/torch_sdpa.json" ] && [ -s "$R/perf_fwd/results.json" ]; then
  expect_exit 0 "$BIN" compare "$R/peers/perf_fwd/torch_sdpa.json" "$R/perf_fwd/results.json" \
    --pair fa2=torch-flash
  expect_output "0 only in BASE, 0 only in NEW"
  expect_output "fa2 vs torch-flash  all     48"
fi

# Errors: exit 2, one line naming the value and the backends each file has.
one_line() { [ "$(wc -l < "$TMP/out")" -eq 1 ] || { cat "$TMP/out" >&2; fail "not one line: $*"; }; }
HAVE="backends in NEW $D/pair_ours.json: fa2; in BASE $D/pair_peer.json: torch-flash, torch-cudnn"
for bad in fa2 =torch-flash fa2= fa2=torch-flsh torch-flash=fa2; do
  expect_exit 2 "$BIN" compare "$D/pair_peer.json" "$D/pair_ours.json" --pair "$bad"
  expect_output "--pair \"$bad\": "
  expect_output "$HAVE"
  one_line "--pair $bad"
done
expect_exit 2 "$BIN" compare "$D/pair_peer.json" "$D/pair_ours.json" --pair fa2=torch-flsh
expect_output "no backend \"torch-flsh\" in BASE $D/pair_peer.json"
expect_exit 2 "$BIN" compare "$D/pair_ours.json" "$D/pair_peer.json" --pair fa2=torch-flash
expect_output "are BASE and NEW swapped?"
# --help explains the flag with the example.
expect_exit 0 "$BIN" compare --help
expect_output "--pair NEW_BACKEND=BASE_BACKEND"
expect_output "--pair fa2=torch-flash --pair fa2=torch-cudnn --format md"
echo "ok: compare --pair"
