#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# sweep --shard I/N defers the checks that select cases of other shards (verdict "deferred":
# listed, counted, skipped in JUnit, never a failure), so a shard exits 0 when nothing it
# could judge failed; merge judges every check on all cases.
#   shard_deferred_checks.sh FA2BENCH_BINARY SOURCE_DIR
set -uo pipefail
bin=$1 src=$2
cfg=$src/configs/ci_cpu.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
for i in 0 1; do
  "$bin" sweep --config "$cfg" --target cpu --shard "$i/2" --out "$tmp/s$i" \
    --junit "$tmp/s$i.xml" > "$tmp/s$i.out" 2>&1
  rc=$?
  [ "$rc" -eq 0 ] || { cat "$tmp/s$i.out"; fail "shard $i/2 exited $rc, want 0"; }
  grep -q "^deferred" "$tmp/s$i.out" || fail "shard $i/2 lists no deferred check"
  grep -q "deferred to the merge of the shards" "$tmp/s$i.out" || fail "shard $i: no count"
  grep -q 'skipped="[1-9]' "$tmp/s$i.xml" || fail "shard $i: JUnit skipped count is 0"
done
python3 - "$tmp/s0/results.json" <<'PY' || fail "results.json of a shard"
import json, sys
r = json.load(open(sys.argv[1]))
deferred = [v for v in r["checks"] if v["verdict"] == "deferred"]
assert deferred and r["summary"]["checks_deferred"] == len(deferred), r["summary"]
assert all("merge" in v["detail"] for v in deferred)
PY
"$bin" check "$tmp/s0/results.json" > /dev/null 2>&1 || fail "check of a shard exited $?"
"$bin" merge "$tmp/s0/results.json" "$tmp/s1/results.json" -o "$tmp/all.json" > "$tmp/m.out" 2>&1 ||
  fail "merge exited $?"
grep -q "deferred" "$tmp/m.out" && fail "merge left a check deferred"
python3 - "$tmp/all.json" <<'PY' || fail "merged verdicts"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["checks"] and all(v["verdict"] == "pass" for v in r["checks"]), r["checks"]
PY
# Deferring never hides a crash: a shard whose own cases crashed still exits 1.
if [ -n "${FA2BENCH_FAULTY:-}" ]; then
  rc=0
  "$FA2BENCH_FAULTY" sweep --config "$cfg" --target cpu --shard 0/2 --isolate --quiet \
    --backends faulty-segv,fa2 --out "$tmp/crashed" > "$tmp/crashed.out" 2>&1 || rc=$?
  [ "$rc" -eq 1 ] || fail "a shard with crashed cases exited $rc, want 1"
  grep -q "^deferred" "$tmp/crashed.out" || fail "the crashed shard lists no deferred check"
fi
echo "shard deferred checks: ok"
