# SPDX-License-Identifier: Apache-2.0
# The CI config runs end to end on the CPU target, every check passes, every report is written.
source "$(dirname "$0")/lib.sh"
expect_exit 0 "$BIN" sweep --config "$SRC/configs/ci_cpu.json" --target cpu --out "$TMP/run" \
  --junit "$TMP/junit.xml"
for f in results.json results.csv summary.md results.jsonl; do
  [ -s "$TMP/run/$f" ] || fail "missing report $f"
done
[ -s "$TMP/junit.xml" ] || fail "missing junit"
cases=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['cases']))" "$TMP/run/results.json")
lines=$(wc -l < "$TMP/run/results.jsonl")
[ "$cases" -eq "$lines" ] || fail "results.jsonl has $lines lines for $cases cases"
python3 - "$TMP/run/results.json" <<'PY' || fail "results.json content"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["schema"].startswith("fa2bench/results/1"), r["schema"]
assert r["target"] == "cpu"
assert all(c["status"] == "ok" for c in r["cases"]), [c["id"] for c in r["cases"] if c["status"] != "ok"]
assert {c["backend"] for c in r["cases"]} == {"cpu-naive", "cpu-flash"}
assert all(c["accuracy"]["rows_checked"] > 0 for c in r["cases"])
assert r["checks"] and all(v["verdict"] == "pass" for v in r["checks"])
PY
# The saved results re-check to the same verdicts.
expect_exit 0 "$BIN" check "$TMP/run/results.json"
echo "ok"
