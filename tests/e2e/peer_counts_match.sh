#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The peer scripts (scripts/peer_harness.py) count FLOPs and minimal traffic as fa2bench does, so
# their TFLOP/s and GB/s sit beside ours: for every case of every committed fa2bench run and of
# fresh CPU sweeps (variable-length batches, D_v != D, GQA, T_q != T_k, every mode), the
# harness's counts from the case's params equal the ones fa2bench wrote. Windowed and paged
# cases are left out (the peers record them unsupported). $1: fa2bench, $2: source tree.
source "$(dirname "$0")/lib.sh"
expect_exit 0 "$BIN" sweep --config "$SRC/configs/cpu_varlen.json" --target cpu --out "$TMP/varlen" \
  --quiet
expect_exit 0 "$BIN" sweep --config "$SRC/configs/cpu_training.json" --target cpu \
  --out "$TMP/training" --quiet --set measure.max_samples=1 --set measure.min_samples=1
# The D_v sweep's cases run where the CPU backends take D_v; its counts are checked either way.
"$BIN" sweep --config "$SRC/configs/cpu_split_head_dims.json" --target cpu --out "$TMP/split" \
  --quiet --set measure.max_samples=1 --set measure.min_samples=1 >/dev/null 2>&1
[ -f "$TMP/split/results.json" ] || fail "the D_v sweep wrote no results"
PYTHONPATH="$SRC/scripts" python3 - "$SRC" "$TMP" <<'PY' || fail "counts differ"
import glob, json, os, sys
import peer_harness as h
src, tmp = sys.argv[1], sys.argv[2]
files = [p for p in glob.glob(f"{src}/results/*/**/results.json", recursive=True)
         if "/peers/" not in p]
files += [f"{tmp}/{n}/results.json" for n in ("varlen", "training", "split")]
checked, split = 0, 0
for path in files:
    r = json.load(open(path))
    if "cases" not in r or r.get("schema") != "fa2bench/results/1":
        continue  # transformer-step results count their own way
    for c in r["cases"]:
        p = c["params"]
        if list(p.get("window", [-1, -1])) != [-1, -1] or p.get("kv_layout", "contiguous") != "contiguous":
            continue
        want, got = c["flops"], h.case_flops(p)
        assert abs(got - want) <= 1e-9 * max(1.0, want), (path, c["id"], got, want)
        if c["status"] == "ok" and c.get("gbps") and c["time_ms"].get("median"):
            traffic = c["gbps"] * 1e9 * c["time_ms"]["median"] * 1e-3
            mine = h.min_traffic_bytes(p)
            assert abs(mine - traffic) <= 1e-6 * traffic, (path, c["id"], mine, traffic)
        checked += 1
        split += "D_v" in p
assert checked > 1000 and split > 0, (checked, split)
print(f"{checked} cases ({split} with D_v != D) counted alike")
PY
echo "ok"
