# SPDX-License-Identifier: Apache-2.0
# sweep --shard I/N: disjoint slices whose union is the unsharded run; the hidden
# --cpu-workers N (a testing aid for the --devices worker pool) gives the same result set in
# config order; bad --shard / --devices are usage errors naming the flag.
source "$(dirname "$0")/lib.sh"
CFG="$SRC/tests/data/tiny_cpu.json"
expect_exit 0 "$BIN" sweep --config "$CFG" --target cpu --quiet --out "$TMP/full"
for i in 0 1 2; do
  expect_exit 0 "$BIN" sweep --config "$CFG" --target cpu --quiet --shard "$i/3" --out "$TMP/s$i"
done
python3 - "$TMP/full/results.json" "$TMP"/s0/results.json "$TMP"/s1/results.json "$TMP"/s2/results.json <<'PY' || fail "shards"
import json, sys
full, *shards = (json.load(open(p)) for p in sys.argv[1:])
ids = [c["id"] for c in full["cases"]]
for i, s in enumerate(shards):
    assert s["shard"] == {"index": i, "count": 3}, s.get("shard")
    assert [c["id"] for c in s["cases"]] == ids[i::3], ([c["id"] for c in s["cases"]], ids[i::3])
    assert s["config"]["sha256"] == full["config"]["sha256"]
assert sorted(c["id"] for s in shards for c in s["cases"]) == sorted(ids)
assert "shard" not in full
PY
expect_exit 0 "$BIN" merge "$TMP"/s2/results.json "$TMP"/s0/results.json "$TMP"/s1/results.json \
  -o "$TMP/merged.json"
python3 - "$TMP/full/results.json" "$TMP/merged.json" <<'PY' || fail "merged shards"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert [c["id"] for c in a["cases"]] == [c["id"] for c in b["cases"]]
PY
# A worker pool of 3 CPU workers: every case once, in config order, same checks.
expect_exit 0 "$BIN" sweep --config "$CFG" --target cpu --cpu-workers 3 --out "$TMP/pool"
expect_output "3 workers"
expect_output "[worker 2]"
python3 - "$TMP/full/results.json" "$TMP/pool/results.json" "$TMP/pool/results.jsonl" <<'PY' || fail "pool"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
lines = [json.loads(l) for l in open(sys.argv[3])]
assert [c["id"] for c in a["cases"]] == [c["id"] for c in b["cases"]]
assert all(c["status"] == "ok" for c in b["cases"])
assert sorted(c["id"] for c in lines) == sorted(c["id"] for c in b["cases"])
assert [v["verdict"] for v in a["checks"]] == [v["verdict"] for v in b["checks"]]
PY
# Usage errors.
for bad in 3/3 x 1 -1/2 1/0 "0/2/1"; do
  expect_exit 2 "$BIN" sweep --config "$CFG" --target cpu --shard "$bad"
  expect_output "--shard $bad"
done
expect_exit 2 "$BIN" sweep --config "$CFG" --target cpu --devices all
expect_output "--devices"
expect_exit 2 "$BIN" sweep --config "$CFG" --target auto --cpu-workers 2
expect_output "--cpu-workers"
expect_exit 2 "$BIN" sweep --config "$CFG" --target cpu --cpu-workers 2 --no-isolate
echo "ok"
