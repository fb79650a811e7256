#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Issue 41, defect 4: `compare --fail-on-regression` never passes when nothing was compared:
# a BASE with no cases, a BASE whose every median is null, an interrupted BASE, an empty
# transformer BASE. Each exits 1 and says why. $1: fa2bench, $2: source tree.
source "$(dirname "$0")/../lib.sh"
G="$SRC/tests/e2e/gates"
NEW="$G/verdict_base.json"
python3 - "$NEW" "$TMP" <<'PY' || fail "fixtures"
import copy, json, sys
d = json.load(open(sys.argv[1]))
e = copy.deepcopy(d); e["cases"] = []
json.dump(e, open(f"{sys.argv[2]}/base_empty.json", "w"))
n = copy.deepcopy(d)
for c in n["cases"]:
    for k in ("median", "p10", "p90", "mean", "min", "max", "first"):
        c["time_ms"][k] = None
json.dump(n, open(f"{sys.argv[2]}/base_null_medians.json", "w"))
i = copy.deepcopy(d); i["interrupted"] = True
json.dump(i, open(f"{sys.argv[2]}/base_interrupted.json", "w"))
PY
expect_exit 0 "$BIN" compare "$NEW" "$NEW" --fail-on-regression
expect_exit 1 "$BIN" compare "$TMP/base_empty.json" "$NEW" --fail-on-regression
expect_output "has no results: nothing was compared"
expect_exit 1 "$BIN" compare "$TMP/base_null_medians.json" "$NEW" --fail-on-regression
expect_output "nothing was compared"
expect_exit 1 "$BIN" compare "$TMP/base_interrupted.json" "$NEW" --fail-on-regression
expect_output "is an interrupted run"
# Without --fail-on-regression the same comparisons report and exit 0.
expect_exit 0 "$BIN" compare "$TMP/base_empty.json" "$NEW"

# Transformer results: an empty BASE.
expect_exit 0 "$BIN" sweep --config "$SRC/configs/cpu_model_step.json" --target cpu \
  --out "$TMP/run" --set 'sweeps.0.grid.T=[33]' --set 'sweeps.0.grid.recompute=["off"]' \
  --set 'measure.min_samples=1' --set 'measure.max_samples=1' --set 'measure.warmup=0'
python3 - "$TMP/run/results.json" "$TMP" <<'PY' || fail "model fixtures"
import copy, json, sys
d = json.load(open(sys.argv[1]))
e = copy.deepcopy(d); e["cases"] = []
json.dump(e, open(f"{sys.argv[2]}/model_empty.json", "w"))
i = copy.deepcopy(d); i["interrupted"] = True
json.dump(i, open(f"{sys.argv[2]}/model_interrupted.json", "w"))
PY
expect_exit 0 "$BIN" compare "$TMP/run/results.json" "$TMP/run/results.json" --fail-on-regression
expect_exit 1 "$BIN" compare "$TMP/model_empty.json" "$TMP/run/results.json" --fail-on-regression
expect_output "has no results: nothing was compared"
expect_exit 1 "$BIN" compare "$TMP/model_interrupted.json" "$TMP/run/results.json" \
  --fail-on-regression
expect_output "is an interrupted run"
echo "ok"
