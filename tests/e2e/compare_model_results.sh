# SPDX-License-Identifier: Apache-2.0
# compare on transformer results: H200 training-step files (ours beside PyTorch's peer, copied
# from a session's committed run into tests/data so that re-runs do not move the expected
# numbers; the peer's run was cut short at 9 of 12 cases) matched by shape with --pair, the ratios in every format, and the exit codes: 0, 1 with
# --fail-on-regression, 2 for two kinds of file or a model file that cannot be used.
source "$(dirname "$0")/lib.sh"
H="$SRC/tests/data/compare/model_step"
PEER="$H/torch_train_step.json"
OURS="$H/ours_results.json"

expect_exit 0 "$BIN" compare "$PEER" "$OURS" --pair fa2=torch-flash --format md
expect_output "| fa2 | torch-flash | L12-h4096-nh32-V32000-B4-T2048/bf16/adamw | ok | ok | 28.64 | 28.20 | 0.985x | 248.0 | 224.9 | 0.907x |"
expect_output "| fa2 | torch-flash | L12-h4096-nh32-V32000-B4-T8192/bf16/adamw | ok | ok |"
expect_output "| fa2 vs torch-flash | 3 | 0.970x | 0.950x | 1.052x |"
expect_output "torch_train_step.json is an interrupted run"
# An oom on either side is a status, not a crash or a ratio.
expect_exit 0 "$BIN" compare "$PEER" "$OURS" --pair naive=torch-math
expect_output "oom→oom"
expect_exit 0 "$BIN" compare "$PEER" "$OURS" --pair fa2=torch-flash --format csv --out "$TMP/m.csv"
grep -qF "fa2=torch-flash/L12-h4096-nh32-V32000-B4-T4096/bf16/adamw,fa2,torch-flash," "$TMP/m.csv" ||
  fail "csv lacks the T=4096 pair"
expect_exit 0 "$BIN" compare "$PEER" "$OURS" --pair fa2=torch-flash --format json --out "$TMP/m.json"
python3 - "$TMP/m.json" <<'PY' || fail "json"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["kind"] == "fa2bench-model-compare" and len(j["cases"]) == 3, j
assert abs(j["cases"][0]["step_ratio"] - 224.88573455810547 / 248.02336502075195) < 1e-12
PY

# The other way round torch-flash is 10% slower at T=2048, and NEW (the peer's) is interrupted.
expect_exit 1 "$BIN" compare "$OURS" "$PEER" --pair torch-flash=fa2 --fail-on-regression
expect_output "fa2bench: 1 regression (1 slower"
expect_output "failing: NEW $PEER: interrupted before its last case"
expect_exit 0 "$BIN" compare "$OURS" "$PEER" --pair torch-flash=fa2

# Two kinds of file, a pair naming an absent backend, and unusable model files: exit 2.
expect_exit 2 "$BIN" compare "$OURS" "$SRC/tests/data/compare/pair_ours.json"
expect_output "compare needs two files of one kind"
expect_output "is transformer results (kind \"fa2bench-model-results\")"
expect_output "is attention results (schema \"fa2bench/results/1\")"
expect_exit 2 "$BIN" compare "$PEER" "$OURS" --pair fa22=torch-flash
expect_output "no backend \"fa22\" in NEW"
python3 - "$OURS" "$TMP" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
fa2 = next(i for i, c in enumerate(r["cases"]) if c["backend"] == "fa2" and c["status"] == "ok")
a = json.loads(json.dumps(r)); del a["cases"][fa2]["timing"]["step_ms"]
json.dump(a, open(sys.argv[2] + "/no_step.json", "w"))
b = json.loads(json.dumps(r)); b["cases"][fa2]["memory"]["peak_bytes"] = None
json.dump(b, open(sys.argv[2] + "/null_peak.json", "w"))
open(sys.argv[2] + "/cut.json", "w").write(json.dumps(r)[:5000])
PY
expect_exit 2 "$BIN" compare "$PEER" "$TMP/no_step.json" --pair fa2=torch-flash
expect_output "timing/step_ms: an ok case needs a step time > 0"
expect_exit 2 "$BIN" compare "$PEER" "$TMP/null_peak.json" --pair fa2=torch-flash
expect_output "memory/peak_bytes: expected an integer, got null"
expect_exit 2 "$BIN" compare "$PEER" "$TMP/cut.json"
expect_output "truncated JSON"
# The attention tools that do not read model files yet say what the file is.
expect_exit 2 "$BIN" export "$OURS" --format gbench -o "$TMP/g.json"
expect_output "is a transformer results file"
# Plots: ours and PyTorch's file overlaid; a mix with attention results is exit 2.
PY=${PYTHON:-python3}
expect_exit 2 "$PY" "$SRC/scripts/plot_results.py" "$OURS" "$SRC/tests/data/compare/pair_ours.json" \
  --out "$TMP/plots"
expect_output "cannot share plots"
expect_exit 2 "$PY" "$SRC/scripts/plot_results.py" "$TMP/no_step.json" --out "$TMP/plots"
expect_output "timing/step_ms: an ok case needs a finite number > 0"
if "$PY" -c "import matplotlib" 2>/dev/null; then
  expect_exit 0 "$PY" "$SRC/scripts/plot_results.py" "$OURS" "$PEER" --out "$TMP/plots"
  for f in model_peak_vs_T model_step_ms_vs_T; do
    for ext in png svg; do
      [ -s "$TMP/plots/$f.$ext" ] || fail "plot $f.$ext missing"
    done
  done
  grep -qF "torch-flash" "$TMP/plots/model_peak_vs_T.svg" || fail "the peer's series is not in the plot"
else
  echo "skip: matplotlib is not installed: plot_results.py not run on model results"
fi
echo "ok"
