# SPDX-License-Identifier: Apache-2.0
# The training pipeline on the CPU target: configs/cpu_training.json (bwd and fwd_bwd, naive and
# fa2 as cpu-naive and cpu-flash) runs end to end, every check passes, the gradient metrics
# reach every report, and the saved results re-check to the same verdicts.
source "$(dirname "$0")/lib.sh"
expect_exit 0 "$BIN" sweep --config "$SRC/configs/cpu_training.json" --target cpu --out "$TMP/run" \
  --junit "$TMP/junit.xml"
python3 - "$TMP/run/results.json" <<'PY' || fail "results.json content"
import json, sys
r = json.load(open(sys.argv[1]))
cases = r["cases"]
assert cases and all(c["status"] == "ok" for c in cases), [c["id"] for c in cases if c["status"] != "ok"]
assert {c["params"]["mode"] for c in cases} == {"bwd", "fwd_bwd"}
assert all(c["id"].endswith("/" + c["params"]["mode"]) for c in cases)
for c in cases:
    a = c["accuracy"]
    assert a["grads_checked"] and a["key_rows_checked"] > 0, c["id"]
    for g in ("dq", "dk", "dv"):
        assert a["max_abs_err_" + g] is not None, (c["id"], g)
    assert c["memory"]["saved_bytes"] > 0, c["id"]
    assert c["memory"]["peak_bytes"] > 0
assert "3.5x" in r["conventions"]["flops"], r["conventions"]["flops"]
assert r["checks"] and all(v["verdict"] == "pass" for v in r["checks"]), \
    [(v["name"], v["detail"]) for v in r["checks"] if v["verdict"] != "pass"]
PY
head -1 "$TMP/run/results.csv" | grep -q ",mode," || fail "results.csv lacks the mode column"
head -1 "$TMP/run/results.csv" | grep -q "max_abs_err_dv" || fail "results.csv lacks gradient errors"
expect_exit 0 "$BIN" check "$TMP/run/results.json"
# plan shows the saved bytes and the training peak without running anything.
# The verdicts must not depend on the machine: the CPU target's per-thread scratch grows with
# the core count, so the memory claims sit at a length where they hold on many cores too.
expect_exit 0 env FA2BENCH_CPU_THREADS=32 "$BIN" sweep --config "$SRC/configs/cpu_training.json" \
  --target cpu --out "$TMP/many_threads"
expect_exit 0 "$BIN" plan --config "$SRC/configs/cpu_training.json" --memory 1GiB
expect_output "saved"
expect_output "/fwd_bwd"
echo "ok"
