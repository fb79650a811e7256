#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# V and O with a head dim of their own (D_v != D) on the CPU target: configs/cpu_split_head_dims.json
# runs end to end with every check passing (outputs and gradients against float64, FLOPs
# 2*B*H*T_q*T_k*(D + D_v)); ids, params and the CSV carry D_v; a case with D_v = D reads as one
# without the axis; the saved results re-check to the same verdicts. $1: fa2bench, $2: source.
source "$(dirname "$0")/lib.sh"
expect_exit 0 "$BIN" sweep --config "$SRC/configs/cpu_split_head_dims.json" --target cpu \
  --out "$TMP/run" --quiet
python3 - "$TMP/run/results.json" <<'PY' || fail "results.json content"
import json, sys
r = json.load(open(sys.argv[1]))
cases = r["cases"]
assert len(cases) == 98 and all(c["status"] == "ok" for c in cases), \
    [(c["id"], c["reason"]) for c in cases if c["status"] != "ok"]
split = [c for c in cases if c["sweep"] == "split"]
assert all(c["params"]["D_v"] == 128 and "-Dv128/" in c["id"] for c in split), split[0]["id"]
same = [c for c in cases if c["sweep"] == "same"]
assert all("D_v" not in c["params"] and "-Dv" not in c["id"] for c in same), same[0]["id"]
by_id = {c["id"]: c for c in cases}
c = by_id["cpu-flash/B1-H4-Hkv2-T100-D192-Dv128/bf16/full"]
assert c["flops"] == 2 * 4 * 100 * 100 * (192 + 128), c["flops"]
# The gradients were checked, and against D_v-wide dV: a wrong width would not match float64.
g = by_id["cpu-naive/B1-H4-Hkv2-Tq17-Tk33-D64-Dv128/bf16/causal/bshd/fwd_bwd"]["accuracy"]
assert g["grads_checked"] and g["rel_l2_err_dv"] < 4e-2, g
assert r["checks"] and all(v["verdict"] == "pass" for v in r["checks"]), \
    [(v["name"], v["detail"]) for v in r["checks"] if v["verdict"] != "pass"]
PY
head -1 "$TMP/run/results.csv" | grep -q ",D_v" || fail "results.csv lacks the D_v column"
expect_exit 0 "$BIN" check "$TMP/run/results.json"
expect_exit 0 "$BIN" plan --config "$SRC/configs/cpu_split_head_dims.json" --memory 1GiB
expect_output "D192-Dv128"
expect_output "2*B*H*T_q*T_k*(D + D_v)"
echo "ok"
