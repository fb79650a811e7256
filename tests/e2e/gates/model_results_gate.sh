#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Issue 41, defect 1: transformer (training-step) results go through the same result gate as
# attention results. A step deleted, set to error or timeout, repeated, or outside the config's
# expansion must fail `check` (exit 1) with the reason, although every check still passes on
# the steps present. $1: fa2bench, $2: source tree.
source "$(dirname "$0")/../lib.sh"
# Two tiny steps (naive and fa2 at T = 33), seconds on the CPU target.
expect_exit 0 "$BIN" sweep --config "$SRC/configs/cpu_model_step.json" --target cpu \
  --out "$TMP/run" --set 'sweeps.0.grid.T=[33]' --set 'sweeps.0.grid.recompute=["off"]' \
  --set 'measure.min_samples=1' --set 'measure.max_samples=1' --set 'measure.warmup=0'
R="$TMP/run/results.json"
expect_exit 0 "$BIN" check "$R"

# EDIT: a python expression over the results document `d` (its echo untouched, so it verifies).
edited() {
  python3 - "$R" "$TMP/$1.json" "$2" <<'PY' || fail "editing $1"
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PY
  echo "$TMP/$1.json"
}
# The checks select fa2 (status, loss) and T 256 (the ratio): the naive step at T 33 is in
# no check's selection, so only the gate can catch what happens to it.
NAIVE='[c for c in d["cases"] if c["backend"] == "cpu-naive" and not c.get("recompute")][0]'
F=$(edited deleted "d['cases'].remove($NAIVE)")
expect_exit 1 "$BIN" check "$F"
expect_output "results incomplete:"
expect_output "missing cpu-naive/L2-h64-nh4-V97-B2-T33/fp32/adamw"
F=$(edited error "c = $NAIVE; c['status'] = 'error'; c['reason'] = 'crafted error'")
expect_exit 1 "$BIN" check "$F"
expect_output "is error: crafted error"
expect_output "results_usable"
F=$(edited timeout "c = $NAIVE; c['status'] = 'timeout'; c['reason'] = 'crafted timeout'")
expect_exit 1 "$BIN" check "$F"
expect_output "is timeout: crafted timeout"
F=$(edited extra "import copy; c = copy.deepcopy($NAIVE); c['id'] = c['id'].replace('T33', 'T34'); c['params']['T'] = 34; d['cases'].append(c)")
expect_exit 1 "$BIN" check "$F"
expect_output "is not in the config's expansion"
# A repeated step: the reader refuses it (exit 2), or the gate does (exit 1); never a pass.
F=$(edited repeated "import copy; d['cases'].append(copy.deepcopy($NAIVE))")
"$BIN" check "$F" >"$TMP/out" 2>&1
rc=$?
[ "$rc" -eq 1 ] || [ "$rc" -eq 2 ] || { cat "$TMP/out" >&2; fail "a repeated step gave exit $rc"; }
grep -qiE "more than once|duplicate" "$TMP/out" || { cat "$TMP/out" >&2; fail "no word of the repeat"; }
F=$(edited interrupted "d['interrupted'] = True; d['cases'].remove($NAIVE)")
expect_exit 1 "$BIN" check "$F"
expect_output "(interrupted)"
# The same gate in JUnit: a CI reading only the XML sees the failure too.
F=$(edited error2 "c = $NAIVE; c['status'] = 'error'")
expect_exit 1 "$BIN" check "$F" --junit "$TMP/junit.xml"
grep -q "results_usable" "$TMP/junit.xml" || fail "JUnit lacks the gate's verdict"
echo "ok"
