# SPDX-License-Identifier: Apache-2.0
# Issue 41 (gates, round two), at the command line: what every command that reads results or
# configs refuses (exit 2, naming the file and the place), and how every output is written
# (exit 3 naming the file or "stdout" when a write fails; links, FIFOs and devices never
# replaced). $1: fa2bench, $2: source tree. Each block names its defect.
source "$(dirname "$0")/../lib.sh"
CFG="$SRC/tests/data/tiny_cpu.json"
expect_exit 0 "$BIN" sweep --config "$CFG" --target cpu --quiet --filter 'T16-D32/fp16/causal' \
  --out "$TMP/run"
R="$TMP/run/results.json"

# edit FILE OUT PYTHON: OUT is FILE's results document after the statements (on `j`).
edit() {
  python3 - "$1" "$2" "$3" <<'PY' || fail "editing $1"
import json, sys
j = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(j, open(sys.argv[2], "w"))
PY
}

# ---- 5: a case twice in one file: every reader refuses it ----
edit "$R" "$TMP/dup.json" 'c = json.loads(json.dumps(j["cases"][0])); c["time_ms"]["median"] *= 10; j["cases"].append(c)'
n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["cases"]) - 1)' "$TMP/dup.json")
for cmd in "check" "compare $R" "export --format gbench" "merge -o $TMP/m.json"; do
  # shellcheck disable=SC2086  # cmd is a list of words
  expect_exit 2 "$BIN" $cmd "$TMP/dup.json"
  expect_output "dup.json: /cases/$n: duplicate case id"
  expect_output "also at /cases/0"
done

# ---- 7: values no measurement has ----
for edit_pointer in 'accuracy/max_abs_err|-1' 'accuracy/max_abs_err|"-inf"' \
  'memory/peak_bytes|-1' 'accuracy/nonfinite|-1' 'time_ms/median|-1'; do
  IFS='|' read -r field value <<< "$edit_pointer"
  edit "$R" "$TMP/bad.json" "a, b = '$field'.split('/'); j['cases'][0][a][b] = $value"
  expect_exit 2 "$BIN" check "$TMP/bad.json"
  expect_output "bad.json: /cases/0/$field: "
  expect_output "is negative"
done

# ---- 8: B bounded before a length distribution is drawn ----
cat > "$TMP/varlen.json" <<'JSON'
{"name": "v", "defaults": {"H": 1, "D": 64, "B": 3000000000},
 "sweeps": [{"name": "s", "backends": ["cpu-flash"],
             "grid": {"lengths": {"dist": "uniform", "min": 1, "max": 8, "seed": 1}}}]}
JSON
expect_exit 2 timeout 20 "$BIN" validate --config "$TMP/varlen.json"
expect_output "/defaults/B: B = 3000000000 sequences"

# ---- 9: inputs that are not regular files: refused at once, never read ----
mkfifo "$TMP/fifo"
expect_exit 2 timeout 20 "$BIN" validate --config /dev/zero
expect_output "/dev/zero: is a character device"
expect_exit 2 timeout 20 "$BIN" validate --config "$TMP/fifo"
expect_output "fifo: is a FIFO"
expect_exit 2 timeout 20 "$BIN" check "$TMP/fifo"
expect_output "fifo: is a FIFO"
expect_exit 2 timeout 20 "$BIN" compare "$R" "$TMP/fifo"
expect_output "fifo: is a FIFO"

# ---- 10: outputs: every write checked, only regular files replaced ----
expect_exit 3 "$BIN" export "$R" --format gbench -o /dev/full
expect_output "/dev/full: cannot write: No space left on device"
# Standard output on a full device: the data did not arrive, exit 3.
"$BIN" export "$R" --format gbench > /dev/full 2> "$TMP/out"
[ $? -eq 3 ] || { cat "$TMP/out" >&2; fail "export > /dev/full did not exit 3"; }
expect_output "stdout"
expect_output "No space left on device"
"$BIN" compare "$R" "$R" --format json > /dev/full 2> "$TMP/out"
[ $? -eq 3 ] || { cat "$TMP/out" >&2; fail "compare --format json > /dev/full did not exit 3"; }
expect_output "No space left on device"
# A table on stdout (check prints one) goes through the same end-of-run check.
"$BIN" check "$R" > /dev/full 2> "$TMP/out"
[ $? -eq 3 ] || { cat "$TMP/out" >&2; fail "check > /dev/full did not exit 3"; }
expect_output "fa2bench: writing stdout failed: No space left on device"
# A symlink stays a link; its target gets the text.
echo old > "$TMP/target.json"
ln -s "$TMP/target.json" "$TMP/link.json"
expect_exit 0 "$BIN" export "$R" --format gbench -o "$TMP/link.json"
[ -L "$TMP/link.json" ] || fail "-o replaced the symlink by a regular file"
grep -q '"benchmarks"' "$TMP/target.json" || fail "the link's target did not get the export"
ln -s "$TMP/junit_target.xml" "$TMP/junit_link.xml"
expect_exit 0 "$BIN" compare "$R" "$R" --junit "$TMP/junit_link.xml" --summary-md "$TMP/link.json"
[ -L "$TMP/junit_link.xml" ] && [ -L "$TMP/link.json" ] || fail "--junit/--summary-md replaced a link"
grep -q "<testsuite" "$TMP/junit_target.xml" || fail "the dangling link's target was not written"
# A FIFO is written through (a reader gets the text), not replaced.
mkfifo "$TMP/out.fifo"
timeout 20 cat "$TMP/out.fifo" > "$TMP/from_fifo" &
reader=$!
expect_exit 0 timeout 20 "$BIN" export "$R" --format nvbench-md -o "$TMP/out.fifo"
wait "$reader" || fail "the FIFO's reader got nothing"
[ -p "$TMP/out.fifo" ] || fail "-o replaced the FIFO by a regular file"
[ -s "$TMP/from_fifo" ] || fail "nothing came through the FIFO"

# ---- 12: the small ones ----
for v in 0 1 1.5; do
  expect_exit 2 "$BIN" compare "$R" "$R" --alpha "$v"
  expect_output "--alpha"
done
expect_exit 0 "$BIN" compare "$R" "$R" --alpha 0.01
expect_exit 2 "$BIN" validate --config "$CFG" --set 'measure={"max_samples": 5, "max_samples": 7}'
expect_output '/max_samples: duplicate key "max_samples"'
{ cat "$CFG"; printf '\0{"trailing": '; } > "$TMP/nul.json"
expect_exit 2 "$BIN" validate --config "$TMP/nul.json"
expect_output "nul.json: holds a NUL byte at byte offset $(wc -c < "$CFG")"
{ cat "$R"; printf '\0junk'; } > "$TMP/nul_results.json"
expect_exit 2 "$BIN" check "$TMP/nul_results.json"
expect_output "holds a NUL byte at byte offset"
# --out that cannot be used: a regular file and a read-only folder are one class (exit 2).
echo x > "$TMP/a_file"
expect_exit 2 "$BIN" sweep --config "$CFG" --target cpu --quiet --out "$TMP/a_file"
expect_output "--out $TMP/a_file"
if [ "$(id -u)" -ne 0 ]; then  # root writes anywhere
  mkdir "$TMP/ro" && chmod 555 "$TMP/ro"
  expect_exit 2 "$BIN" sweep --config "$CFG" --target cpu --quiet --out "$TMP/ro"
  expect_output "$TMP/ro"
fi
echo "ok"
