#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Issue 41, defect 3: every command that judges a results file by its config echo verifies
# the echo against the recorded sha256 as `check` does, and none passes without a usable echo:
# merge (any input, in any order), compare (NEW's echo, attention and transformer results).
# $1: fa2bench, $2: source tree.
source "$(dirname "$0")/../lib.sh"
G="$SRC/tests/e2e/gates"
# A shard set of the verdict config: two shards of the sound file.
python3 - "$G/verdict_base.json" "$TMP" <<'PY' || fail "shards"
import copy, json, sys
d = json.load(open(sys.argv[1]))
for i in range(2):
    s = copy.deepcopy(d)
    s["cases"] = [c for k, c in enumerate(d["cases"]) if k % 2 == i]
    s["shard"] = {"index": i, "count": 2}
    json.dump(s, open(f"{sys.argv[2]}/shard{i}.json", "w"))
# Shard 1 with a loosened threshold edited into its echo (the sha256 stays the sweep's).
s = json.load(open(f"{sys.argv[2]}/shard1.json"))
s["config"]["echo"]["checks"][0]["value"] = 1e300
json.dump(s, open(f"{sys.argv[2]}/shard1_edited.json", "w"))
# Shard 0 without an echo.
s = json.load(open(f"{sys.argv[2]}/shard0.json"))
del s["config"]["echo"]
json.dump(s, open(f"{sys.argv[2]}/shard0_no_echo.json", "w"))
# NEW with allow_case_errors edited into its echo and a crashed case.
n = copy.deepcopy(d)
n["config"]["echo"]["allow_case_errors"] = True
n["cases"][1]["status"] = "error"
n["cases"][1]["reason"] = "crafted error"
json.dump(n, open(f"{sys.argv[2]}/new_allow_errors.json", "w"))
PY
expect_exit 0 "$BIN" merge "$TMP/shard0.json" "$TMP/shard1.json" -o "$TMP/m.json"
# merge: an edited echo in any input is refused, as check refuses it.
expect_exit 2 "$BIN" check "$TMP/shard1_edited.json"
expect_output "/config/echo was edited"
expect_exit 2 "$BIN" merge "$TMP/shard0.json" "$TMP/shard1_edited.json" -o "$TMP/m.json"
expect_output "shard1_edited.json: /config/echo was edited"
expect_exit 2 "$BIN" merge "$TMP/shard1_edited.json" "$TMP/shard0.json" -o "$TMP/m.json"
expect_output "shard1_edited.json: /config/echo was edited"
# merge: a file without an echo is refused whatever the argument order ...
expect_exit 2 "$BIN" merge "$TMP/shard0_no_echo.json" "$TMP/shard1.json" -o "$TMP/m.json"
expect_output "shard0_no_echo.json: has no config echo"
expect_exit 2 "$BIN" merge "$TMP/shard1.json" "$TMP/shard0_no_echo.json" -o "$TMP/m.json"
expect_output "shard0_no_echo.json: has no config echo"
# ... unless the config is given, which then judges.
python3 -c 'import json, sys; json.dump(json.load(open(sys.argv[1]))["config"]["echo"], open(sys.argv[2], "w"))' \
  "$G/verdict_base.json" "$TMP/verdict.json"
expect_exit 0 "$BIN" merge "$TMP/shard0_no_echo.json" "$TMP/shard1.json" -o "$TMP/m.json" \
  --config "$TMP/verdict.json"
# compare: NEW's echo edited to allow case errors must not let its crashed case pass.
expect_exit 2 "$BIN" compare "$G/verdict_base.json" "$TMP/new_allow_errors.json" \
  --fail-on-regression
expect_output "/config/echo was edited"

# Transformer results: compare verifies NEW's echo too.
expect_exit 0 "$BIN" sweep --config "$SRC/configs/cpu_model_step.json" --target cpu \
  --out "$TMP/run" --set 'sweeps.0.grid.T=[33]' --set 'sweeps.0.grid.recompute=["off"]' \
  --set 'measure.min_samples=1' --set 'measure.max_samples=1' --set 'measure.warmup=0'
python3 - "$TMP/run/results.json" "$TMP/model_edited.json" <<'PY' || fail "model edit"
import json, sys
d = json.load(open(sys.argv[1]))
d["config_echo"]["allow_case_errors"] = True
json.dump(d, open(sys.argv[2], "w"))
PY
expect_exit 0 "$BIN" compare "$TMP/run/results.json" "$TMP/run/results.json" --fail-on-regression
expect_exit 2 "$BIN" check "$TMP/model_edited.json"
expect_output "/config_echo was edited"
expect_exit 2 "$BIN" compare "$TMP/run/results.json" "$TMP/model_edited.json" --fail-on-regression
expect_output "/config_echo was edited"
echo "ok"
