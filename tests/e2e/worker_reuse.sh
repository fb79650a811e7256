# SPDX-License-Identifier: Apache-2.0
# --isolate keeps one worker process for case after case (issue 18, item 4): the sweep's last
# line says how many it started. A crash costs its case and one worker start, no more.
source "$(dirname "$0")/lib.sh"
FAULTY=${FA2BENCH_FAULTY:-$(dirname "$BIN")/tests/fa2bench_faulty}
[ -x "$FAULTY" ] || fail "test binary fa2bench_faulty not found (FA2BENCH_FAULTY)"
CFG="$SRC/tests/data/tiny_cpu.json"

# A clean sweep of 8 cases: one worker.
expect_exit 0 "$BIN" sweep --config "$CFG" --target cpu --isolate --quiet --out "$TMP/clean"
expect_output "workers started: 1"

# A segfault in the middle (the second of four cases): its worker is replaced once.
expect_exit 1 "$FAULTY" sweep --config "$CFG" --target cpu --isolate --quiet \
  --backends fa2,faulty-segv --filter 'T16-D32/fp16/causal|^cpu-flash/B1-H2-T48' \
  --out "$TMP/segv"
expect_output "workers started: 2"
python3 - "$TMP/segv/results.json" <<'PY' || fail "segv in the middle"
import json, sys
r = json.load(open(sys.argv[1]))
st = [(c["backend"], c["status"]) for c in r["cases"]]
assert st == [("cpu-flash", "ok"), ("faulty-segv", "error"), ("cpu-flash", "ok"),
              ("cpu-flash", "ok")], st
PY

# In process there are no workers, and no such line.
expect_exit 0 "$BIN" sweep --config "$CFG" --target cpu --no-isolate --quiet --out "$TMP/inproc"
! grep -q "workers started" "$TMP/out" || fail "an in-process sweep reported workers"
echo "ok"
