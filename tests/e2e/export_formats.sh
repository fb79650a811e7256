#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `fa2bench export`: google/benchmark JSON that Python's json module reads with the keys
# compare.py uses, nvbench markdown, stdout and -o, and a usage error for an unknown format.
#   export_formats.sh FA2BENCH_BINARY SOURCE_DIR
set -euo pipefail
bin=$1 src=$2
results=$src/tests/data/compare/mixed.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" export "$results" --format gbench -o "$tmp/gbench.json"
python3 - "$tmp/gbench.json" "$results" <<'PY'
import json, sys
out, src = (json.load(open(p)) for p in sys.argv[1:3])
assert set(out) == {"context", "benchmarks"}, out.keys()
assert len(out["benchmarks"]) == len(src["cases"])
for b, c in zip(out["benchmarks"], src["cases"]):
    for k in ("name", "run_name", "run_type", "real_time", "cpu_time", "time_unit", "iterations"):
        assert k in b, (k, b)
    assert b["name"] == "fa2bench/" + c["id"]
    if c["status"] == "ok":
        assert b["real_time"] == c["time_ms"]["median"] and b["time_unit"] == "ms"
    else:
        assert b["error_occurred"] is True and b["error_message"].startswith(c["status"])
print("gbench: ok")
PY
"$bin" export "$results" --format nvbench-md > "$tmp/table.md"
grep -q '^# Benchmark Results$' "$tmp/table.md"
[ "$(grep -c '^| fa2\|^| naive\|^| cudnn\|^| standard' "$tmp/table.md")" -ge 1 ]
rc=0
"$bin" export "$results" --format csv > /dev/null 2>&1 || rc=$?
[ "$rc" -eq 2 ] || { echo "FAIL: unknown format exited $rc, want 2" >&2; exit 1; }
rc=0
"$bin" export "$tmp/missing.json" --format gbench > /dev/null 2> "$tmp/err" || rc=$?
[ "$rc" -eq 2 ] && grep -q missing.json "$tmp/err" || { echo "FAIL: missing file: $rc" >&2; exit 1; }
echo "export: ok"
