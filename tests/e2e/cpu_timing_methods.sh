# SPDX-License-Identifier: Apache-2.0
# measure.timing on the CPU target (issue 44 item 3): one sweep per method over the same cases;
# events and cold run (cold records its copies, its peak equals events'), graph is unsupported
# with its reason and the sweep still exits 0; results echo the method only when not events and
# re-check cleanly; summary.md has the three sweeps' tables; configs/timing_methods.json expands.
source "$(dirname "$0")/lib.sh"
expect_exit 0 "$BIN" validate --config "$SRC/configs/timing_methods.json"
expect_output "18 case(s)"
python3 - "$TMP/cfg.json" <<'PY'
import json, sys
sweep = lambda name: {"name": name, "backends": ["cpu-flash"],
                      "grid": {"B": [1, 2], "T_q": [64, 1], "T_k": [64, 300]},
                      "zip": [["B", "T_q", "T_k"]], "measure": {"timing": name}}
json.dump({"name": "timing_cpu",
           "measure": {"warmup": 1, "min_samples": 3, "max_samples": 3, "verify_rows": 16},
           "defaults": {"H": 2, "D": 32, "dtype": "bf16", "causal": False},
           "sweeps": [sweep("events"), sweep("graph"), sweep("cold")]}, open(sys.argv[1], "w"))
PY
expect_exit 0 "$BIN" sweep --config "$TMP/cfg.json" --target cpu --out "$TMP/run" --quiet
python3 - "$TMP/run/results.json" <<'PY' || fail "results.json content"
import json, sys
cases = json.load(open(sys.argv[1]))["cases"]
by = {}
for c in cases:
    by.setdefault(c["sweep"], {})[c["id"]] = c
assert sorted(by) == ["cold", "events", "graph"], sorted(by)
for cid, e in by["events"].items():
    g, k = by["graph"][cid], by["cold"][cid]
    assert "timing" not in e["measure"], e["measure"]
    assert e["status"] == "ok" and "graph_launches" not in e["time_ms"], e
    assert g["measure"]["timing"] == "graph" and g["status"] == "unsupported", g
    assert g["reason"] == "graph timing needs the CUDA target", g["reason"]
    assert k["measure"]["timing"] == "cold" and k["status"] == "ok", k
    assert 2 <= k["time_ms"]["cold_copies"] <= 256, k["time_ms"]
    assert k["time_ms"]["cold_copy_bytes"] > 0, k["time_ms"]
    assert k["memory"]["peak_bytes"] == e["memory"]["peak_bytes"], (k["memory"], e["memory"])
    assert k["accuracy"]["max_abs_err"] == e["accuracy"]["max_abs_err"]
PY
for s in events graph cold; do
  grep -q "^## Sweep \`$s\`" "$TMP/run/summary.md" || fail "summary.md lacks sweep $s"
done
grep -q "unsupported: graph timing needs the CUDA target" "$TMP/run/summary.md" ||
  fail "summary.md lacks graph's reason"
expect_exit 0 "$BIN" check "$TMP/run/results.json"
echo "ok"
