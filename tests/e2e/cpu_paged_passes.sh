# SPDX-License-Identifier: Apache-2.0
# A paged KV cache on the CPU target (issue 20, item 2): configs/cpu_paged.json runs end to end
# with every check passing; each paged case carries kv_layout and page_size in params, ids and
# CSV, has exactly the accuracy of its contiguous twin (the same inputs gathered through the
# page table) and a tracked peak that follows its prediction, which counts the pools and the table;
# plan prints them; a --dump holds the pools and the page table; the training mode is refused.
source "$(dirname "$0")/lib.sh"
CFG="$SRC/configs/cpu_paged.json"
expect_exit 0 "$BIN" sweep --config "$CFG" --target cpu --out "$TMP/run" \
  --dump "$TMP/dump" --dump-filter 'cpu-flash/B2-H4-Hkv2-Tq4-Tk17-D40/bf16/causal/paged16$'
python3 - "$TMP/run/results.json" <<'PY' || fail "results.json content"
import json, math, sys
r = json.load(open(sys.argv[1]))
cases = r["cases"]
paged = [c for c in cases if c["sweep"] == "paged"]
plain = {c["id"]: c for c in cases if c["sweep"] == "contiguous"}
assert len(paged) == 24 and len(plain) == 8, (len(paged), len(plain))
for c in paged:
    p = c["params"]
    assert c["status"] == "ok", (c["id"], c["reason"])
    assert p["kv_layout"] == "paged" and p["page_size"] in (1, 16, 256), p
    assert c["id"].endswith("/causal/paged%d" % p["page_size"]), c["id"]
    twin = plain[c["id"].rsplit("/", 1)[0]]
    assert "kv_layout" not in twin["params"], twin["params"]
    for k in ("max_abs_err", "mean_abs_err", "rel_l2_err", "rows_checked", "nonfinite"):
        assert c["accuracy"][k] == twin["accuracy"][k], (c["id"], k, c["accuracy"], twin["accuracy"])
    assert c["accuracy"]["rows_checked"] == p["B"] * p["H"] * p["T_q"], c["accuracy"]
    m, tm = c["memory"], twin["memory"]
    # Every peak is its prediction (cpu-flash's per-thread tile scratch included), in both
    # layouts.
    assert m["peak_bytes"] == m["predicted_bytes"], (c["id"], m)
    assert tm["peak_bytes"] == tm["predicted_bytes"], (twin["id"], tm)
    pages = p["B"] * math.ceil(p["T_k"] / p["page_size"])
    kv_contig = 2 * p["B"] * p["H_kv"] * p["T_k"] * p["D"] * 2
    pools = 2 * pages * p["page_size"] * p["H_kv"] * p["D"] * 2
    assert m["predicted_bytes"] - twin["memory"]["predicted_bytes"] == pools + pages * 4 - kv_contig, c["id"]
train = [c for c in cases if c["sweep"] == "paged_training"]
assert len(train) == 1 and train[0]["status"] == "unsupported", train
assert "forward only" in train[0]["reason"], train[0]["reason"]
assert r["checks"] and all(v["verdict"] == "pass" for v in r["checks"]), \
    [(v["name"], v["detail"]) for v in r["checks"] if v["verdict"] != "pass"]
PY
head -1 "$TMP/run/results.csv" | grep -q ",kv_layout,page_size," || fail "results.csv lacks the paged columns"
# After page_size: mfu and bw_frac (empty: no peak on the cpu target), then the repro.
grep -q "/paged256,paged,cpu-flash,fa2,.*,paged,256,,,fa2bench sweep " "$TMP/run/results.csv" ||
  fail "results.csv row of a paged case"
# The saved results re-check to the same verdicts.
expect_exit 0 "$BIN" check "$TMP/run/results.json"
# The dump: the pools [num_pages, page_size, H_kv, D] and the page table [B, pages].
D="$TMP/dump/paged__cpu-flash_B2-H4-Hkv2-Tq4-Tk17-D40_bf16_causal_paged16"
[ -f "$D/page_table.npy" ] || fail "the dump lacks page_table.npy: $(ls "$TMP/dump" 2>&1)"
python3 - "$D/manifest.json" <<'PY' || fail "dump manifest of a paged case"
import json, sys
m = json.load(open(sys.argv[1]))
t = m["tensors"]
assert t["k"]["shape"] == [4, 16, 2, 40] and t["v"]["shape"] == [4, 16, 2, 40], t
assert t["page_table"]["shape"] == [2, 2] and t["page_table"]["npy_dtype"] == "<i4", t
PY
# plan prints the pages, the pools and the table.
expect_exit 0 "$BIN" plan --config "$CFG" --memory 1GiB
expect_output "Paged KV caches"
expect_output "B2-H4-Hkv2-Tq4-Tk1000-D40/bf16/causal/paged16"
echo "ok"
