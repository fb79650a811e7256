# SPDX-License-Identifier: Apache-2.0
# Sliding windows and head dims on the CPU target (issue 20): configs/cpu_window.json runs end to
# end with every check passing; results carry the window in params, ids and CSV; FLOPs count the
# visible pairs; saved results re-check to the same verdicts; configs/head_dims.json expands to
# every multiple of 8 from 32 to 256 and runs (three of them here, to keep CI short).
source "$(dirname "$0")/lib.sh"
expect_exit 0 "$BIN" sweep --config "$SRC/configs/cpu_window.json" --target cpu --out "$TMP/run"
python3 - "$TMP/run/results.json" <<'PY' || fail "results.json content"
import json, sys
r = json.load(open(sys.argv[1]))
cases = r["cases"]
assert cases and all(c["status"] == "ok" for c in cases), [c["id"] for c in cases if c["status"] != "ok"]
windows = {tuple(c["params"]["window"]) for c in cases}
assert {(0, 0), (3, -1), (-1, 5), (16, 16), (1000, 1000)} <= windows, windows
# causal with right 0 is stored as right -1: one case, one id.
assert all(c["params"]["window"][1] == -1 for c in cases if c["params"]["causal"]), "causal right bound"
by_id = {c["id"]: c for c in cases}
w = by_id["cpu-flash/B1-H2-T300-D40/bf16/full/wl16-wr16"]
assert w["params"]["window"] == [16, 16], w["params"]
# 300 rows, 33 keys each away from the edges, 16 * 17 missing at the two ends: 9628 pairs.
assert w["flops"] == 4 * 2 * 40 * 9628, w["flops"]
assert "window" in r["conventions"]["flops"], r["conventions"]["flops"]
assert r["checks"] and all(v["verdict"] == "pass" for v in r["checks"]), \
    [(v["name"], v["detail"]) for v in r["checks"] if v["verdict"] != "pass"]
PY
head -1 "$TMP/run/results.csv" | grep -q ",window_left,window_right," || fail "results.csv lacks the window"
# After page_size: mfu and bw_frac (empty: no peak on the cpu target), then the repro.
grep -q "/full/wl16-wr16,windows,cpu-flash,fa2,.*,16,16,,,,,contiguous,,,,fa2bench sweep " \
  "$TMP/run/results.csv" ||
  fail "results.csv row of a windowed case"
expect_exit 0 "$BIN" check "$TMP/run/results.json"
expect_exit 0 "$BIN" plan --config "$SRC/configs/cpu_window.json" --memory 1GiB
expect_output "/wl16-wr16"
expect_output "visible (query row, key) pair"

# A --filter on the window tags selects windowed cases (those every check needs kept).
expect_exit 0 "$BIN" sweep --config "$SRC/configs/cpu_window.json" --target cpu --out "$TMP/tag" \
  --filter '/wl(3|16-wr16)(/|$)' --quiet
python3 - "$TMP/tag/results.json" <<'PY' || fail "filtered sweep"
import json, sys
cases = json.load(open(sys.argv[1]))["cases"]
assert cases and all(c["params"]["window"] in ([3, -1], [16, 16]) for c in cases), [c["id"] for c in cases]
PY

# Every head dim that is a multiple of 8 from 32 to 256, both backends.
expect_exit 0 "$BIN" validate --config "$SRC/configs/head_dims.json"
expect_output "58 case(s)"
expect_exit 0 "$BIN" sweep --config "$SRC/configs/head_dims.json" --target cpu --out "$TMP/hd" \
  --filter '-D(40|64|200)/' --quiet
python3 - "$TMP/hd/results.json" <<'PY' || fail "head_dims results"
import json, sys
cases = json.load(open(sys.argv[1]))["cases"]
assert sorted((c["backend"], c["params"]["D"]) for c in cases) == [
    (b, d) for b in ("cpu-flash", "cpu-naive") for d in (40, 64, 200)], [c["id"] for c in cases]
assert all(c["status"] == "ok" and c["accuracy"]["max_abs_err"] < 3e-2 for c in cases)
PY
echo "ok"
