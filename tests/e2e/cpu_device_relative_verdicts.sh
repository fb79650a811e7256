# SPDX-License-Identifier: Apache-2.0
# Issue 43: one config, two memory sizes, the same verdicts. configs/cpu_device_relative.json
# runs on the CPU target under --memory-budget 1GiB (naive fits at every T) and 4MiB (naive's
# 12 MiB at T = 1024 exceeds it and is oom): both exit 0, no verdict is error or fail, the
# premise-dependent checks are pass on one and skipped on the other, `check` re-judges each file
# to the same verdicts from its recorded capacity, and the same config without the
# device-relative keys errors under the small budget (what the seeds did on an 80 GB card).
source "$(dirname "$0")/lib.sh"
CFG="$SRC/configs/cpu_device_relative.json"
for budget in 1GiB 4MiB; do
  expect_exit 0 "$BIN" sweep --config "$CFG" --target cpu --memory-budget "$budget" \
    --out "$TMP/$budget" --junit "$TMP/$budget.xml"
  expect_exit 0 "$BIN" check "$TMP/$budget/results.json"
done
expect_output "skipped"
python3 - "$TMP" <<'PY' || fail "verdicts differ from what each budget must give"
import json, sys, csv
tmp = sys.argv[1]
want = {
    "1GiB": {"naive_ok_where_plan_fits": "pass", "naive_oom_where_plan_exceeds": "skipped",
             "fa2_ok_at_every_length": "pass", "fa2_peak_below_naive_at_1024": "pass",
             "fa2_dq_within_2x_naive": "pass", "naive_keeps_S_and_P_at_1024": "pass"},
    "4MiB": {"naive_ok_where_plan_fits": "pass", "naive_oom_where_plan_exceeds": "pass",
             "fa2_ok_at_every_length": "pass", "fa2_peak_below_naive_at_1024": "skipped",
             "fa2_dq_within_2x_naive": "pass", "naive_keeps_S_and_P_at_1024": "pass"},
}
for budget, expected in want.items():
    r = json.load(open(f"{tmp}/{budget}/results.json"))
    got = {v["name"]: v["verdict"] for v in r["checks"]}
    assert got == expected, (budget, got, [(v["name"], v["detail"]) for v in r["checks"]])
    dev = r["device"]
    assert dev["capacity_source"] == "memory_budget", dev
    naive = {c["params"]["T_q"]: c["status"] for c in r["cases"] if c["role"] == "naive"}
    if budget == "4MiB":
        assert dev["capacity_bytes"] == 4 << 20, dev
        assert naive == {64: "ok", 256: "ok", 1024: "oom"}, naive
        assert r["summary"]["checks_skipped"] == 1, r["summary"]
        skipped = [v for v in r["checks"] if v["verdict"] == "skipped"][0]
        assert skipped["detail"].startswith("n/a on this device"), skipped
        assert "is oom" in skipped["detail"], skipped
    else:
        assert naive == {64: "ok", 256: "ok", 1024: "ok"}, naive
    # Every ok case's prediction is its tracked peak (cpu-flash's per-thread scratch included).
    for c in r["cases"]:
        if c["status"] == "ok":
            m = c["memory"]
            assert m["peak_bytes"] == m["predicted_bytes"], (c["id"], m)
    rows = {row["name"]: row["verdict"] for row in csv.DictReader(open(f"{tmp}/{budget}/checks.csv"))}
    assert rows == expected, rows
    xml = open(f"{tmp}/{budget}.xml").read()
    assert xml.count("<skipped message=\"n/a on this device") == 1, xml
PY
grep -q "skipped" "$TMP/4MiB/summary.md" || fail "summary.md lacks the skipped verdict"
# Without the device-relative keys the small budget makes the ratio an error (exit 1): the
# test would fail without `pairs: both_ran`.
python3 - "$CFG" "$TMP/strict.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
for ch in c["checks"]:
    ch.pop("pairs", None); ch.pop("min_pairs", None)
open(sys.argv[2], "w").write(json.dumps(c))
PY
expect_exit 1 "$BIN" sweep --config "$TMP/strict.json" --target cpu --memory-budget 4MiB \
  --out "$TMP/strict"
expect_output "error"
echo "ok"
