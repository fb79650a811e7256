# SPDX-License-Identifier: Apache-2.0
# --isolate: a case that crashes its process or hangs costs that case only. Runs the test
# binary fa2bench_faulty (fa2bench plus the faulty-segv and faulty-hang backends).
source "$(dirname "$0")/lib.sh"
FAULTY=${FA2BENCH_FAULTY:-$(dirname "$BIN")/tests/fa2bench_faulty}
[ -x "$FAULTY" ] || fail "test binary fa2bench_faulty not found (FA2BENCH_FAULTY)"
CFG="$SRC/tests/data/tiny_cpu.json"
ONE='T16-D32/fp16/causal'
# The product binary has no faulty backends.
expect_exit 2 "$BIN" sweep --config "$CFG" --target cpu --backends faulty-segv
expect_output "unknown backend \"faulty-segv\""

# A segfault: status error with the signal, and the next case (same sweep) runs fine.
expect_exit 1 "$FAULTY" sweep --config "$CFG" --target cpu --isolate --filter "$ONE" \
  --backends faulty-segv,fa2 --out "$TMP/segv"
expect_output "isolated in worker processes"
python3 - "$TMP/segv/results.json" <<'PY' || fail "segv results"
import json, sys
r = json.load(open(sys.argv[1]))
st = {c["backend"]: c for c in r["cases"]}
assert st["faulty-segv"]["status"] == "error", st["faulty-segv"]
reason = st["faulty-segv"]["reason"]
# a plain build dies of SIGSEGV; under AddressSanitizer the child reports and exits 1
assert "before writing a result" in reason and ("signal 11" in reason or "exited with status" in reason), reason
assert st["cpu-flash"]["status"] == "ok", st["cpu-flash"]
assert st["faulty-segv"]["flops"] > 0 and st["faulty-segv"]["memory"]["predicted_bytes"] > 0
PY

# A hang: --case-timeout kills it, status timeout, and the next case runs fine.
start=$(date +%s)
expect_exit 1 "$FAULTY" sweep --config "$CFG" --target cpu --case-timeout 2 --filter "$ONE" \
  --backends faulty-hang,fa2 --out "$TMP/hang"
[ $(( $(date +%s) - start )) -lt 30 ] || fail "the timeout did not stop the hung case"
python3 - "$TMP/hang/results.json" <<'PY' || fail "hang results"
import json, sys
r = json.load(open(sys.argv[1]))
st = {c["backend"]: c for c in r["cases"]}
assert st["faulty-hang"]["status"] == "timeout", st["faulty-hang"]
assert "--case-timeout" in st["faulty-hang"]["reason"]
assert st["cpu-flash"]["status"] == "ok", st["cpu-flash"]
assert r["summary"]["timeout"] == 1
PY

# Isolated results equal in-process ones in everything but timings.
expect_exit 0 "$BIN" sweep --config "$CFG" --target cpu --isolate --quiet --out "$TMP/iso"
expect_exit 0 "$BIN" sweep --config "$CFG" --target cpu --quiet --out "$TMP/inproc"
python3 - "$TMP/iso/results.json" "$TMP/inproc/results.json" <<'PY' || fail "isolated != in-process"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
key = lambda r: [(c["id"], c["status"], c["accuracy"]["max_abs_err"], c["memory"]["peak_bytes"],
                  c["measure"]) for c in r["cases"]]
assert key(a) == key(b), (key(a), key(b))
assert a["device"] == b["device"] and a["config"]["sha256"] == b["config"]["sha256"]
PY

# Backend::info() reaches backend_info (results.json and results.jsonl), also from the
# isolated child; backends without info write no backend_info key.
for mode in isolate no-isolate; do
  expect_exit 0 "$FAULTY" sweep --config "$CFG" --target cpu --$mode --quiet --filter "$ONE" \
    --backends info-probe,fa2 --out "$TMP/info-$mode"
  python3 - "$TMP/info-$mode" <<'PY' || fail "backend_info ($mode)"
import json, sys
d = sys.argv[1]
want = 'info-probe: prepared T_q=16, "quoted", \u00b5s'
for cases in (json.load(open(d + "/results.json"))["cases"],
              [json.loads(l) for l in open(d + "/results.jsonl")]):
    st = {c["backend"]: c for c in cases}
    assert st["info-probe"]["status"] == "ok", st["info-probe"]
    assert st["info-probe"].get("backend_info") == want, st["info-probe"].get("backend_info")
    assert "backend_info" not in st["cpu-flash"], st["cpu-flash"]
PY
done

# Flag combinations that cannot work: exit 2 naming the flag.
expect_exit 2 "$BIN" sweep --config "$CFG" --target cpu --no-isolate --case-timeout 5
expect_output "--no-isolate"
expect_exit 2 "$BIN" sweep --config "$CFG" --target cpu --case-timeout -1
expect_output "--case-timeout"
echo "ok"
