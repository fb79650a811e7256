# SPDX-License-Identifier: Apache-2.0
# Every sweep's results.json says whether the SM clock was locked: {"locked": false} when not
# asked; with --lock-clocks on the cpu target (no GPU clock) the request and the reason not
# locked; a frequency outside 100..5000 MHz is a usage error naming the flag. merge keeps it.
source "$(dirname "$0")/lib.sh"
CFG="$SRC/tests/data/tiny_cpu.json"
expect_exit 0 "$BIN" sweep --config "$CFG" --target cpu --quiet --out "$TMP/plain" \
  --filter 'T16-'
expect_exit 0 "$BIN" sweep --config "$CFG" --target cpu --lock-clocks 1500 --out "$TMP/asked" \
  --filter 'T16-'
expect_output "--lock-clocks 1500: clocks not locked (the cpu target has no GPU clock to lock)"
python3 - "$TMP/plain/results.json" "$TMP/asked/results.json" <<'PY' || fail "clocks record"
import json, sys
plain = json.load(open(sys.argv[1]))["clocks"]
asked = json.load(open(sys.argv[2]))["clocks"]
assert plain == {"locked": False}, plain
assert asked == {"locked": False, "requested_mhz": 1500,
                 "reason": "the cpu target has no GPU clock to lock"}, asked
PY
expect_exit 2 "$BIN" sweep --config "$CFG" --target cpu --lock-clocks 50 --out "$TMP/low"
expect_output "--lock-clocks"
expect_exit 0 "$BIN" merge "$TMP/asked/results.json" --out "$TMP/merged.json"
python3 - "$TMP/merged.json" <<'PY' || fail "merge dropped the clocks record"
import json, sys
assert json.load(open(sys.argv[1]))["clocks"]["requested_mhz"] == 1500
PY
echo "ok"
