# SPDX-License-Identifier: Apache-2.0
# Each case's `repro` (issue 44) is a real command: run through a POSIX shell as written, with
# `fa2bench` standing for the built binary, it re-runs exactly that case and no other. The
# config sits in a folder whose name needs quoting (a space and a single quote), and the sweep
# carries --set, --backends and --inputs, so the quoting and the flags are both exercised. On
# the CPU target no peak is known: mfu and bw_frac are absent, their CSV cells empty.
source "$(dirname "$0")/lib.sh"
dir="$TMP/it's a dir"
mkdir -p "$dir" || fail "mkdir"
cp "$SRC/tests/data/tiny_cpu.json" "$dir/tiny cpu.json" || fail "copy config"
expect_exit 0 "$BIN" sweep --config "$dir/tiny cpu.json" --target cpu --out "$TMP/run" --quiet \
  --set measure.seed=12 --backends naive,fa2 --inputs uniform

python3 - "$TMP/run/results.json" "$TMP/run/results.csv" "$TMP/repros" <<'PY' || fail "fields"
import csv, json, sys
doc = json.load(open(sys.argv[1]))
cases = doc["cases"]
assert len(cases) > 1, len(cases)
for c in cases:
    assert "mfu" not in c and "bw_frac" not in c, c["id"]  # no peak on the cpu target
    assert c["repro"].startswith("fa2bench sweep --config "), c["repro"]
    assert "--target cpu" in c["repro"] and "--out" not in c["repro"], c["repro"]
rows = list(csv.DictReader(open(sys.argv[2])))
assert [r["id"] for r in rows] == [c["id"] for c in cases]
for r, c in zip(rows, cases):
    assert r["mfu"] == "" and r["bw_frac"] == "", r
    assert r["repro"] == c["repro"], (r["repro"], c["repro"])
# One line per case for the shell below: the id, a tab, the command.
with open(sys.argv[3], "w") as f:
    for c in cases:
        f.write(c["id"] + "\t" + c["repro"] + "\n")
PY

# The repro names the program `fa2bench`; here that is the binary under test.
fa2bench() { "$BIN" "$@"; }
n=0
while IFS=$'\t' read -r id repro; do
  n=$((n + 1))
  out="$TMP/rerun$n"
  eval "$repro --out \"\$out\" --quiet" >"$TMP/out" 2>&1 || {
    cat "$TMP/out" >&2
    fail "repro of $id failed: $repro"
  }
  python3 - "$TMP/run/results.json" "$out/results.json" "$id" <<'PY' || fail "rerun of $id"
import json, sys
first, again, id = (json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3])
assert [c["id"] for c in again["cases"]] == [id], [c["id"] for c in again["cases"]]
# The same config after the same overrides, and the same command for the case again.
assert again["config"]["sha256"] == first["config"]["sha256"]
was = next(c for c in first["cases"] if c["id"] == id)
now = again["cases"][0]
assert now["measure"] == was["measure"], (now["measure"], was["measure"])
assert now["repro"] == was["repro"], (now["repro"], was["repro"])
PY
done <"$TMP/repros"
[ "$n" -gt 1 ] || fail "no repro lines read"
echo "ok: $n cases re-run one by one"
