# SPDX-License-Identifier: Apache-2.0
# compare and merge end to end: verdicts and exit codes on crafted result pairs, unusable
# files, JUnit that parses, real CPU shards merged back into the unsharded run, the plot script.
source "$(dirname "$0")/lib.sh"
D="$SRC/tests/data/compare"
PY=${FA2BENCH_PYTHON:-python3}

# --- compare: verdicts and exit codes --------------------------------------------------------
# A clear regression: exit 1 with --fail-on-regression, 0 without.
expect_exit 1 "$BIN" compare "$D/base.json" "$D/slower.json" --fail-on-regression
expect_output "slower"
expect_output "1 regression"
expect_exit 0 "$BIN" compare "$D/base.json" "$D/slower.json"
expect_output "5 same, 0 faster, 1 slower"
# Noise only: every case `same`, no failure.
expect_exit 0 "$BIN" compare "$D/base.json" "$D/noise.json" --fail-on-regression
expect_output "6 same, 0 faster, 0 slower, 0 ambiguous, 0 status changes, 0 not ok in both; 0 regressions"
# A wide threshold turns the regression into noise.
expect_exit 0 "$BIN" compare "$D/base.json" "$D/slower.json" --fail-on-regression --threshold 0.25

# Issue 44: a NEW run whose statistics kept samples taken under a throttle reason shows no
# change of its own: the slowdown is ambiguous (throttled), not a regression. Samples that
# measure.drop_throttled left out (dropped_throttled only) leave the verdict as it was.
python3 - "$D/slower.json" "$TMP" <<'PY' || fail "crafting throttled results"
import json, sys
for name, field, value in [("throttled", "throttled_at", [0, 2, 5]),
                           ("dropped", "dropped_throttled", 4)]:
    j = json.load(open(sys.argv[1]))
    for c in j["cases"]:
        if c["status"] == "ok":
            c["time_ms"][field] = value
    json.dump(j, open(f"{sys.argv[2]}/slower_{name}.json", "w"))
PY
expect_exit 0 "$BIN" compare "$D/base.json" "$TMP/slower_throttled.json" --fail-on-regression \
  --junit "$TMP/junit_thr.xml" --format md
expect_output "ambiguous (throttled: NEW 3 of"
expect_output "5 same, 0 faster, 0 slower, 1 ambiguous (1 of them throttled)"
expect_output "0 regressions"
grep -qF "ambiguous (throttled: NEW 3 of" "$TMP/junit_thr.xml" || fail "JUnit lacks the throttle"
grep -qF 'failures="0"' "$TMP/junit_thr.xml" || fail "JUnit fails a throttled case"
expect_exit 1 "$BIN" compare "$D/base.json" "$TMP/slower_dropped.json" --fail-on-regression
expect_output "5 same, 0 faster, 1 slower, 0 ambiguous"

# Every verdict at once, cases missing on either side, all output files.
expect_exit 1 "$BIN" compare "$D/base.json" "$D/mixed.json" --fail-on-regression \
  --junit "$TMP/junit.xml" --summary-md "$TMP/summary.md" --format md --out "$TMP/cmp.md"
for want in "| ambiguous |" "| faster |" "**slower**" "**ok→oom**" \
  "only in BASE: \`naive/B1-H32-T8192-D128/fp16/causal\`" \
  "only in NEW: \`fa2/B1-H32-T8192-D128/fp16/causal\`" "### Geometric mean per backend"; do
  grep -qF -- "$want" "$TMP/cmp.md" || { cat "$TMP/cmp.md" >&2; fail "compare md lacks: $want"; }
done
grep -qF "2 regressions" "$TMP/summary.md" || fail "summary lacks the regression count"
python3 - "$TMP/junit.xml" <<'PY' || fail "compare JUnit"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
# Issue 13: the case only in BASE fails too, as a testcase of class fa2bench.compare.gate.
gate = [c for c in root.findall(".//testcase") if c.get("classname") == "fa2bench.compare.gate"]
assert len(gate) == 1 and "naive/B1-H32-T8192-D128/fp16/causal" in gate[0].get("name"), gate
cases = [c for c in root.findall(".//testcase") if c not in gate]
assert len(cases) == 5, len(cases)
failed = [c.get("name") for c in cases if c.find("failure") is not None]
assert sorted(failed) == ["B1-H32-T2048-D128/fp16/causal", "B1-H32-T4096-D128/fp16/causal"], failed
assert root.find("testsuite").get("failures") == "3"  # 2 before issue 13: the gate's
PY
expect_exit 0 "$BIN" compare "$D/base.json" "$D/mixed.json" --format json --out "$TMP/cmp.json"
python3 - "$TMP/cmp.json" <<'PY' || fail "compare json"
import json, sys
j = json.load(open(sys.argv[1]))
assert [c["verdict"] for c in j["cases"]] == ["same", "slower", "ambiguous", "faster", "ok→oom"], j["cases"]
assert j["counts"]["regressions"] == 2 and j["only_base"] and j["only_new"]
assert {g["backend"] for g in j["geomean"]} == {"fa2", "naive"}
PY
expect_exit 0 "$BIN" compare "$D/base.json" "$D/mixed.json" --format csv
expect_output "naive/B1-H32-T8192-D128/fp16/causal,naive,B1-H32-T8192-D128/fp16/causal,only_base"
# The terminal table names both sides.
expect_exit 0 "$BIN" compare "$D/base.json" "$D/mixed.json"
expect_output "only in BASE: naive/B1-H32-T8192-D128/fp16/causal"
expect_output "only in NEW:  fa2/B1-H32-T8192-D128/fp16/causal"
expect_output "ambiguous"

# Different GPUs: both device blocks shown; --normalize compares utilisation.
expect_exit 0 "$BIN" compare "$D/base.json" "$D/other_gpu.json"
expect_output "NVIDIA H200"
expect_output "NVIDIA A100-SXM4-80GB"
expect_exit 0 "$BIN" compare "$D/base.json" "$D/other_gpu.json" --normalize
expect_output "% of peak"
expect_output "peak 312 TFLOP/s"
# The mode may be named; it is the only one.
expect_exit 0 "$BIN" compare "$D/base.json" "$D/other_gpu.json" --normalize peak
expect_output "% of peak"
expect_exit 2 "$BIN" compare "$D/base.json" "$D/other_gpu.json" --normalize tflops
# Different configs: a warning, still compared.
expect_exit 0 "$BIN" compare "$D/base.json" "$D/other_config.json" --fail-on-regression
expect_output "different configs"
expect_output "6 same"
# An older minor schema with unknown fields loads.
expect_exit 0 "$BIN" compare "$D/old_extra.json" "$D/base.json" --fail-on-regression
expect_output "6 same"

# Unusable files: exit 2, one line naming the file and the place.
expect_exit 2 "$BIN" compare "$D/base.json" "$D/unknown_major.json"
expect_output "unknown_major.json: unknown schema \"fa2bench/results/2\""
expect_exit 2 "$BIN" compare "$D/truncated.json" "$D/base.json" --fail-on-regression
expect_output "truncated.json: line "
expect_output "truncated JSON"
expect_exit 2 "$BIN" compare "$D/base.json" "$D/empty.json"
expect_output "empty.json: empty file"
echo "hello" > "$TMP/not_json.json"
expect_exit 2 "$BIN" compare "$D/base.json" "$TMP/not_json.json"
expect_output "not_json.json: line 1, column 1: not valid JSON"
echo '{"schema": "fa2bench/results/1", "cases": [{"backend": "x"}]}' > "$TMP/bad_case.json"
expect_exit 2 "$BIN" compare "$TMP/bad_case.json" "$D/base.json"
expect_output "bad_case.json: /cases/0/params: missing"
expect_exit 2 "$BIN" compare "$D/base.json" "$TMP/does_not_exist.json"
expect_output "does_not_exist.json: cannot open"
[ "$(wc -l < "$TMP/out")" -eq 1 ] || { cat "$TMP/out" >&2; fail "error is not one line"; }

# --- merge: real CPU shards --------------------------------------------------------------------
# T 64 and 256, D 64, fp16 and bf16, causal and full, naive and fa2 (16 cases or more: the
# config's sweeps may repeat a shape): a few seconds on the CPU target.
CFG="$SRC/configs/ci_cpu.json"
FILTER='-T(64|256)-D64/'
sweep() { "$BIN" sweep --config "$CFG" --target cpu --quiet --filter "$@" >"$TMP/sweep.log" 2>&1; }
sweep "$FILTER" --out "$TMP/full"
full_rc=$?
[ "$full_rc" -le 1 ] || { cat "$TMP/sweep.log" >&2; fail "unsharded sweep exited $full_rc"; }
if "$BIN" sweep --help 2>&1 | grep -q -- "--shard"; then
  how="sweep --shard"
  sweep "$FILTER" --shard 0/2 --out "$TMP/shard-0"
  sweep "$FILTER" --shard 1/2 --out "$TMP/shard-1"
else
  how="two --filter halves (this build's sweep has no --shard)"
  sweep "${FILTER}fp16/" --out "$TMP/shard-0"
  sweep "${FILTER}bf16/" --out "$TMP/shard-1"
fi
for s in 0 1; do [ -s "$TMP/shard-$s/results.json" ] || fail "shard $s wrote no results"; done
ncases() { python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['cases']))" "$1"; }
n_full=$(ncases "$TMP/full/results.json")
n_shard0=$(ncases "$TMP/shard-0/results.json")
[ "$n_full" -ge 16 ] || fail "the unsharded run has $n_full cases, expected at least 16"
expect_exit "$full_rc" "$BIN" merge "$TMP/shard-1/results.json" "$TMP/shard-0/results.json" \
  -o "$TMP/all/results.json" --csv "$TMP/all/results.csv" --summary-md "$TMP/all/summary.md"
expect_output "merged 2 files: $n_full cases (0 duplicates dropped)"
[ -s "$TMP/all/results.csv" ] && [ -s "$TMP/all/summary.md" ] || fail "merge reports missing"
python3 - "$TMP/full/results.json" "$TMP/all/results.json" <<'PY' || fail "merged != unsharded"
import json, sys
full, merged = (json.load(open(p)) for p in sys.argv[1:])
ids = lambda r: [c["id"] for c in r["cases"]]
assert ids(merged) == ids(full), (ids(merged), ids(full))  # same set, same (config) order
verdicts = lambda r: [(v["name"], v["verdict"]) for v in r["checks"]]
assert verdicts(merged) == verdicts(full), (verdicts(merged), verdicts(full))
assert merged["config"]["sha256"] == full["config"]["sha256"]
assert "devices" not in merged  # one machine
PY
# The merged file is a results file: check and compare read it, nothing is missing.
expect_exit "$full_rc" "$BIN" check "$TMP/all/results.json"
expect_exit 0 "$BIN" compare "$TMP/full/results.json" "$TMP/all/results.json"
grep -q "^only in" "$TMP/out" && { cat "$TMP/out" >&2; fail "merged run lacks cases"; }
expect_output "0 only in BASE, 0 only in NEW"
# --normalize on a CPU run has no peak: refused, naming the device.
expect_exit 2 "$BIN" compare "$TMP/full/results.json" "$TMP/all/results.json" --normalize
expect_output "no peak TFLOP/s known for device"

# Duplicates: reported, first kept; --strict makes them an error.
expect_exit "$full_rc" "$BIN" merge "$TMP/all/results.json" "$TMP/shard-0/results.json" \
  -o "$TMP/dup.json"
expect_output "duplicate case"
expect_output "merged 2 files: $n_full cases ($n_shard0 duplicates dropped)"
expect_exit 2 "$BIN" merge "$TMP/all/results.json" "$TMP/shard-0/results.json" \
  -o "$TMP/dup2.json" --strict
expect_output "--strict"
[ -e "$TMP/dup2.json" ] && fail "--strict merge wrote a file"
# A different config (another --set value) is refused, naming both files.
sweep '-T64-D64/fp16/causal' --set measure.max_samples=4 --out "$TMP/other"
expect_exit 2 "$BIN" merge "$TMP/shard-0/results.json" "$TMP/other/results.json" -o "$TMP/x.json"
expect_output "different configs"
expect_output "shard-0/results.json"
expect_output "other/results.json"
# Unusable input: exit 2 naming it.
expect_exit 2 "$BIN" merge "$TMP/shard-0/results.json" "$D/truncated.json" -o "$TMP/x.json"
expect_output "truncated.json: line "

# --- plots ---------------------------------------------------------------------------------
expect_exit 2 "$PY" "$SRC/scripts/plot_results.py" "$D/unknown_major.json" --out "$TMP/plots"
expect_output "unknown_major.json: unknown schema"
expect_exit 2 "$PY" "$SRC/scripts/plot_results.py" "$TMP/not_json.json" --out "$TMP/plots"
expect_output "not_json.json: line 1"
# Without matplotlib (an import that fails): exit 3 with a clear message.
mkdir -p "$TMP/no_mpl/matplotlib"
echo 'raise ImportError("No module named matplotlib")' > "$TMP/no_mpl/matplotlib/__init__.py"
expect_exit 3 env PYTHONPATH="$TMP/no_mpl" "$PY" "$SRC/scripts/plot_results.py" \
  "$TMP/full/results.json" --out "$TMP/plots"
expect_output "matplotlib is not installed"
if "$PY" -c "import matplotlib" 2>/dev/null; then
  expect_exit 0 "$PY" "$SRC/scripts/plot_results.py" "$TMP/full/results.json" \
    "$TMP/all/results.json" --out "$TMP/plots" --at-T 256 --baseline naive
  for f in memory_vs_T tflops_vs_T speedup_at_T256; do
    for ext in png svg; do
      [ -s "$TMP/plots/$f.$ext" ] || fail "plot $f.$ext missing"
    done
  done
  echo "ok: plots"
else
  echo "skip: matplotlib is not installed: plot_results.py not run on real results"
fi
echo "ok: compare and merge (shards by $how)"
