# SPDX-License-Identifier: Apache-2.0
# Variable-length batches on the CPU target (issue 20): configs/cpu_varlen.json runs end to end
# with every check passing; results carry the lengths, packing and the varlen block in params,
# ids and CSV; every real row (lengths 0, 1 and 17 among them) is compared, padding rows are
# not; the backward of both packings checks every real row's dQ and key's dK and dV; FLOPs are
# the useful ones; saved results re-check to the same verdicts; bad lengths exit 2 naming the
# field.
source "$(dirname "$0")/lib.sh"
expect_exit 0 "$BIN" sweep --config "$SRC/configs/cpu_varlen.json" --target cpu --out "$TMP/run"
python3 - "$TMP/run/results.json" <<'PY' || fail "results.json content"
import json, sys
r = json.load(open(sys.argv[1]))
cases = r["cases"]
fwd = [c for c in cases if c["sweep"] == "varlen"]
assert len(fwd) == 16 and all(c["status"] == "ok" for c in fwd), [c["id"] for c in fwd if c["status"] != "ok"]
for c in fwd:
    p, v = c["params"], c["varlen"]
    lengths = p["lengths"]
    assert p["B"] == len(lengths) and p["T_q"] == p["T_k"] == max(lengths), p
    assert "/L=" not in c["id"] and "-L=" in c["id"] and c["id"].endswith("/" + p["packing"]), c["id"]
    assert v["total_tokens"] == sum(lengths), v
    assert abs(v["padding_ratio"] - len(lengths) * max(lengths) / sum(lengths)) < 1e-12, v
    # Useful FLOPs: each sequence at its own length, halved when causal.
    per_seq = sum(4 * p["H"] * p["D"] * n * n for n in lengths) / (2 if p["causal"] else 1)
    assert c["flops"] == v["useful_flops"] == per_seq, (c["flops"], per_seq)
    dense = 4 * p["H"] * p["D"] * p["B"] * p["T_q"] ** 2 / (2 if p["causal"] else 1)
    assert v["executed_flops"] == (dense if p["packing"] == "padded" else per_seq), v
    # Every real row in every head, and no padding row.
    assert c["accuracy"]["rows_checked"] == sum(lengths) * p["H"], c["accuracy"]
    assert c["accuracy"]["nonfinite"] == 0, c["accuracy"]
lists = [c for c in fwd if "lengths_dist" not in c["params"]]
assert lists and all(c["params"]["lengths"] == [17, 0, 1, 130, 64] for c in lists)
drawn = [c for c in fwd if "lengths_dist" in c["params"]]
assert drawn and all(len(c["params"]["lengths"]) == 6 for c in drawn)
assert all(c["params"]["lengths_dist"]["dist"] == "lognormal" for c in drawn)
# A packed batch holds its real tokens only: less memory than its padded twin.
by_id = {c["id"]: c for c in fwd}
for c in fwd:
    if c["params"]["packing"] == "packed":
        twin = by_id[c["id"][: -len("packed")] + "padded"]
        assert c["memory"]["peak_bytes"] < twin["memory"]["peak_bytes"], c["id"]
# The backward of both packings: every real query row and key checked (lengths 17, 0, 1, 70:
# 88 tokens; 4 query heads, 2 KV heads), padding never; gradients finite and close.
train = [c for c in cases if c["sweep"] == "varlen_training"]
assert len(train) == 16 and all(c["status"] == "ok" for c in train), \
    [(c["id"], c["reason"]) for c in train if c["status"] != "ok"]
for c in train:
    a = c["accuracy"]
    assert a["grads_checked"] and a["rows_checked"] == 88 * 4 and a["key_rows_checked"] == 88 * 2, a
    assert a["nonfinite_grad"] == 0 and a["rel_l2_err_dk"] < 2e-2, a
    assert c["memory"]["peak_bytes"] == c["memory"]["predicted_bytes"] or c["backend"] == "cpu-flash", c["memory"]
assert "useful" in r["conventions"]["flops"] and "padding_ratio" in r["conventions"]["varlen"]
assert r["checks"] and all(v["verdict"] == "pass" for v in r["checks"]), \
    [(v["name"], v["detail"]) for v in r["checks"] if v["verdict"] != "pass"]
PY
head -1 "$TMP/run/results.csv" | grep -q ",packing,total_tokens,padding_ratio,executed_flops," ||
  fail "results.csv lacks the varlen columns"
grep -q "/full/packed,varlen,cpu-flash,fa2,.*,packed,212," "$TMP/run/results.csv" ||
  fail "results.csv row of a packed case"
expect_exit 0 "$BIN" check "$TMP/run/results.json"
expect_exit 0 "$BIN" plan --config "$SRC/configs/cpu_varlen.json" --memory 1GiB
expect_output "useful GFLOP"
expect_output "-L=list-1da7a409-"

# A --filter on the packing tag selects those cases.
# --dump of a packed case: one batch of all tokens, and rows named by sequence and token.
expect_exit 0 "$BIN" sweep --config "$SRC/configs/cpu_varlen.json" --target cpu --out "$TMP/tag" \
  --filter '/packed(/|$)' --quiet --dump "$TMP/dump" --dump-filter 'list-.*causal/packed$'
python3 - "$TMP/tag/results.json" "$TMP/dump" <<'PY' || fail "filtered sweep"
import glob, json, os, sys
cases = json.load(open(sys.argv[1]))["cases"]
assert cases and all(c["params"]["packing"] == "packed" for c in cases), [c["id"] for c in cases]
manifests = glob.glob(os.path.join(sys.argv[2], "*", "manifest.json"))
assert len(manifests) == 2, manifests  # cpu-naive and cpu-flash
for path in manifests:
    m = json.load(open(path))
    assert m["tensors"]["o"]["shape"] == [1, 212, 4, 40], m["tensors"]["o"]
    assert "cu_seqlens" in m["reference"]["rows"]["note"], m["reference"]["rows"]
PY

# Bad lengths: exit 2 naming the field.
cat >"$TMP/bad.json" <<'JSON'
{"defaults": {"H": 2, "D": 16},
 "sweeps": [{"name": "s", "backends": ["fa2"],
             "grid": {"T": 64, "lengths": [[17, -1], [3, 100], {"dist": "gauss"}]}}]}
JSON
expect_exit 2 "$BIN" plan --config "$TMP/bad.json"
expect_output "/sweeps/0/grid/lengths/0/1: length -1 is negative"
expect_output "/sweeps/0/grid/lengths/2/dist: unknown length distribution"
echo "ok"
