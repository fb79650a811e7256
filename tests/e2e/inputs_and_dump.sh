# SPDX-License-Identifier: Apache-2.0
# --inputs sets measure.inputs for every case (recorded; NaN inputs give non-finite outputs);
# --dump/--dump-filter write loadable .npy tensors and a manifest, in process and isolated.
source "$(dirname "$0")/lib.sh"
CFG="$SRC/tests/data/tiny_cpu.json"
# NaN inputs (one Q or K element in 4096: T=256 makes sure every case has some): the config's
# no_nonfinite_outputs check fails (exit 1), every case records its inputs and NaN outputs.
expect_exit 1 "$BIN" sweep --config "$CFG" --target cpu --quiet --inputs nan --out "$TMP/nan" \
  --set 'grid.T=[256]' 
python3 - "$TMP/nan/results.json" <<'PY' || fail "--inputs nan"
import json, sys
r = json.load(open(sys.argv[1]))
assert {c["backend"] for c in r["cases"]} == {"cpu-naive", "cpu-flash"}
for c in r["cases"]:
    assert c["measure"]["inputs"] == "nan", c["measure"]
    assert c["accuracy"]["nonfinite"] > 0, (c["id"], c["accuracy"])
assert r["config"]["echo"]["measure"]["inputs"] == "nan"
PY
expect_exit 0 "$BIN" sweep --config "$CFG" --target cpu --quiet --inputs uniform --out "$TMP/uni"
grep -q '"inputs": "uniform"' "$TMP/uni/results.json" || fail "--inputs uniform not recorded"
expect_exit 2 "$BIN" sweep --config "$CFG" --target cpu --inputs gaussian

# Dumps: only the cases the filter selects, in process and in child processes.
for mode in --no-isolate --isolate; do
  rm -rf "$TMP/dump"
  expect_exit 0 "$BIN" sweep --config "$CFG" --target cpu --quiet $mode --dump "$TMP/dump" \
    --dump-filter 'flash/.*T48.*causal$' --out "$TMP/d$mode"  # one --out per run: a new sweep never reuses one
  n=$(find "$TMP/dump" -name manifest.json | wc -l)
  [ "$n" -eq 1 ] || fail "$mode: expected 1 dumped case, got $n"
  python3 - "$TMP/dump" <<'PY' || fail "$mode: dump content"
import json, os, struct, sys, glob
(case_dir,) = [os.path.dirname(p) for p in glob.glob(os.path.join(sys.argv[1], "*", "manifest.json"))]
m = json.load(open(os.path.join(case_dir, "manifest.json")))
assert m["params"]["T_q"] == 48 and m["params"]["causal"] is True and m["backend"] == "cpu-flash"
def load(name):
    raw = open(os.path.join(case_dir, name), "rb").read()
    assert raw[:6] == b"\x93NUMPY" and raw[6] == 1
    hlen = struct.unpack("<H", raw[8:10])[0]
    header = eval(raw[10:10 + hlen].decode("latin1"))
    assert (10 + hlen) % 64 == 0
    size = {"<f4": 4, "<f8": 8, "<u2": 2, "<i8": 8}[header["descr"]]
    n = 1
    for s in header["shape"]:
        n *= s
    assert len(raw) == 10 + hlen + n * size, (name, len(raw), n)
    return header, raw[10 + hlen:]
for t in "qkvo":
    h, _ = load(t + ".npy")
    assert h["descr"] == "<u2" and h["shape"] == (1, 2, 48, 32), h
    assert m["tensors"][t]["shape"] == [1, 2, 48, 32]
h, _ = load("ref_o.npy"); assert h["shape"] == (96, 32), h
h, _ = load("ref_lse.npy"); assert h["shape"] == (96,), h
h, _ = load("rows.npy"); assert h["shape"] == (96, 3), h
# The dumped O matches the float64 reference rows (fp16 bits decoded with struct's 'e').
_, o_raw = load("o.npy")
_, ref_raw = load("ref_o.npy")
_, rows_raw = load("rows.npy")
o = struct.unpack("<%de" % (len(o_raw) // 2), o_raw)
ref = struct.unpack("<%dd" % (len(ref_raw) // 8), ref_raw)
rows = struct.unpack("<%dq" % (len(rows_raw) // 8), rows_raw)
H, T, D = 2, 48, 32
worst = 0.0
for r in range(len(rows) // 3):
    b, h, i = rows[3 * r: 3 * r + 3]
    for d in range(D):
        worst = max(worst, abs(o[((b * H + h) * T + i) * D + d] - ref[r * D + d]))
assert worst < 2e-3, worst
try:
    import numpy as np
except ImportError:
    sys.exit(0)
o = np.load(os.path.join(case_dir, "o.npy")).view(np.float16).astype(np.float64)
ref = np.load(os.path.join(case_dir, "ref_o.npy"))
rows = np.load(os.path.join(case_dir, "rows.npy"))
got = o[rows[:, 0], rows[:, 1], rows[:, 2]]
assert np.abs(got - ref).max() < 2e-3, np.abs(got - ref).max()
PY
done
expect_exit 2 "$BIN" sweep --config "$CFG" --target cpu --dump-filter 'x'
expect_output "--dump-filter needs --dump"
expect_exit 2 "$BIN" sweep --config "$CFG" --target cpu --dump "$TMP/x" --dump-filter '('
expect_output "--dump-filter"
echo "ok"
