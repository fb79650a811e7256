# SPDX-License-Identifier: Apache-2.0
# Issue 18, items 4 and 5: every case records where its wall time went (wall_ms), the sweep's
# last line puts the timed samples beside the wall time, and --profile-once runs each case once
# (no warm-ups, no verification, one sample) with the results saying so.
source "$(dirname "$0")/lib.sh"
CFG="$SRC/tests/data/tiny_cpu.json"

for mode in --isolate --no-isolate; do  # the worker's results carry wall_ms across the socket
  expect_exit 0 "$BIN" sweep --config "$CFG" --target cpu $mode --quiet --out "$TMP/wall$mode"
  grep -qE "^timed [0-9.]+ s of [0-9.]+ s wall \(in the cases: setup [0-9.]+ s, verify [0-9.]+ s, timing [0-9.]+ s\)" \
    "$TMP/out" || { cat "$TMP/out" >&2; fail "no wall summary line ($mode)"; }
  python3 - "$TMP/wall$mode" <<'PY' || fail "wall_ms ($mode)"
import json, sys
d = sys.argv[1]
for cases in (json.load(open(d + "/results.json"))["cases"],
              [json.loads(l) for l in open(d + "/results.jsonl")]):
    for c in cases:
        w = c["wall_ms"]
        assert all(w[k] > 0 for k in ("setup", "verify", "timing", "total")), w
        assert w["total"] >= 0.99 * (w["setup"] + w["verify"] + w["timing"]), w
        assert "profile_once" not in c["measure"], c["measure"]
r = json.load(open(d + "/results.json"))
assert "run" not in r, r.get("run")
PY
done

# --profile-once: one sample, no warm-ups, nothing verified; the checks then cannot pass.
expect_exit 1 "$BIN" sweep --config "$CFG" --target cpu --isolate --profile-once \
  --set measure.warmup=5 --out "$TMP/once"
expect_output "not verified"
python3 - "$TMP/once" <<'PY' || fail "--profile-once results"
import json, sys
d = sys.argv[1]
r = json.load(open(d + "/results.json"))
assert r["run"] == {"profile_once": True}, r.get("run")
assert len(r["cases"]) == 8
for c in r["cases"]:
    assert c["status"] == "ok", c
    assert c["measure"]["profile_once"] is True
    assert c["time_ms"]["n"] == 1 and c["time_ms"]["first"] is None, c["time_ms"]
    assert c["accuracy"]["checked"] is False, c["accuracy"]
    assert c["wall_ms"]["verify"] == 0, c["wall_ms"]
assert json.load(open(d + "/sweep.json"))["run"]["profile_once"] is True
PY

# --resume keeps it, and refuses to mix: a measured sweep cannot be resumed --profile-once.
expect_exit 2 "$BIN" sweep --resume "$TMP/wall--isolate" --profile-once
expect_output "--profile-once"
echo "ok"
