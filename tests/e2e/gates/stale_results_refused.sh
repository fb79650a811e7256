#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Issue 41, defect 6: results are judged only against the measurements they were taken with.
# `check --config` with a config whose seed, inputs or sample counts differ from the run's is
# refused (exit 2, naming what differs) — by the verified echo, or per case by the recorded
# measure blocks when the file has no usable echo; `sweep --resume` refuses a results.jsonl
# whose lines were measured with other settings. A run of a subset of the config's backends
# (`sweep --backends`) is the same measurement of fewer cases and is judged. $1: fa2bench, $2: source tree.
source "$(dirname "$0")/../lib.sh"
CFG="$SRC/configs/ci_cpu.json"
FAST=(--set 'measure.min_samples=1' --set 'measure.max_samples=1')
expect_exit 0 "$BIN" sweep --config "$CFG" --target cpu --out "$TMP/run" "${FAST[@]}"
R="$TMP/run/results.json"
# The config as the run had it (its echo; ci_cpu.json measures with seed 7), then with one
# measurement setting changed.
python3 - "$R" "$TMP" <<'PY' || fail "configs"
import copy, json, sys
echo = json.load(open(sys.argv[1]))["config"]["echo"]
json.dump(echo, open(f"{sys.argv[2]}/same.json", "w"))
for name, key, value in (("seed", "seed", 11), ("inputs", "inputs", "uniform"),
                         ("samples", "max_samples", 5)):
    c = copy.deepcopy(echo); c.setdefault("measure", {})[key] = value
    json.dump(c, open(f"{sys.argv[2]}/{name}.json", "w"))
# Only the checks differ: allowed (judging with other checks is what --config is for).
c = copy.deepcopy(echo); c["checks"] = c.get("checks", [])[:1]
json.dump(c, open(f"{sys.argv[2]}/checks_only.json", "w"))
# The config with a backend the run did not have: the run (naive, fa2) is a `--backends`
# subset of it, the same measurement of fewer cases, so it is judged; a run with a backend the
# config lacks is not.
c = copy.deepcopy(echo)
for s in c["sweeps"]:
    s["backends"] = s["backends"] + ["standard"]
json.dump(c, open(f"{sys.argv[2]}/more_backends.json", "w"))
c = copy.deepcopy(echo); c["checks"] = []
for s in c["sweeps"]:
    s["backends"] = s["backends"][:1]
json.dump(c, open(f"{sys.argv[2]}/fewer_backends.json", "w"))
# The results without their echo: the per-case measure blocks decide.
d = json.load(open(sys.argv[1])); del d["config"]["echo"]
json.dump(d, open(f"{sys.argv[2]}/no_echo.json", "w"))
PY
expect_exit 0 "$BIN" check "$R" --config "$TMP/same.json"
expect_exit 0 "$BIN" check "$R" --config "$TMP/checks_only.json"
expect_exit 0 "$BIN" check "$R" --config "$TMP/more_backends.json"
# A subset run is still judged whole: a case of its own selection missing is never exit 0.
python3 - "$R" "$TMP/short.json" <<'PY' || fail "short"
import json, sys
d = json.load(open(sys.argv[1])); d["cases"] = d["cases"][1:]
json.dump(d, open(sys.argv[2], "w"))
PY
expect_exit 1 "$BIN" check "$TMP/short.json" --config "$TMP/more_backends.json"
expect_output "results incomplete"
expect_exit 2 "$BIN" check "$R" --config "$TMP/fewer_backends.json"
expect_output "/sweeps/0/backends/1"
expect_exit 2 "$BIN" check "$R" --config "$TMP/seed.json"
expect_output "/measure/seed"
expect_exit 2 "$BIN" check "$R" --config "$TMP/inputs.json"
expect_output "/measure/inputs"
expect_exit 2 "$BIN" check "$R" --config "$TMP/samples.json"
expect_output "/measure/max_samples"
expect_exit 0 "$BIN" check "$TMP/no_echo.json" --config "$TMP/same.json"
expect_exit 2 "$BIN" check "$TMP/no_echo.json" --config "$TMP/seed.json"
expect_output "measure/seed 7 in the run, 11 in --config"

# --resume: a results.jsonl from a run with another seed, under this sweep's manifest.
expect_exit 0 "$BIN" sweep --config "$CFG" --target cpu --out "$TMP/other" "${FAST[@]}" \
  --set 'measure.seed=11'
cp "$TMP/other/results.jsonl" "$TMP/run/results.jsonl"
expect_exit 2 "$BIN" sweep --resume "$TMP/run"
expect_output "measured with other settings than the config's"
expect_output "measure/seed 11 in the run, 7 in the config"
echo "ok"
