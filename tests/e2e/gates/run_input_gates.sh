# SPDX-License-Identifier: Apache-2.0
# Input gates (issue 13, items 2-5 and 7): malformed, hostile or conflicting inputs make
# fa2bench exit non-zero with the file, place or flag named; none crashes, none exits 0.
# Every input_* file here must make its command fail (the table below); the rest of the
# inputs are generated (a 100 000-deep document, a 100 MB number) so the tree stays small.
source "$(dirname "$0")/../lib.sh"
HERE="$SRC/tests/e2e/gates"
CFG="$SRC/tests/data/tiny_cpu.json"
FAULTY=${FA2BENCH_FAULTY:-$(dirname "$BIN")/tests/fa2bench_faulty}
[ -x "$FAULTY" ] || fail "test binary fa2bench_faulty not found (FA2BENCH_FAULTY)"
# A crash (SIGSEGV: 139) or any exit but the one wanted fails; so does a message over 4 KiB.
expect_small_output() {
  local size; size=$(wc -c < "$TMP/out")
  [ "$size" -lt 4096 ] || fail "stderr echoes $size bytes (the input is not cut short)"
}

# ---- the crafted files: FILE, exit, text the message must hold, command (FILE appended) ----
declare -A RULES=(
  [input_config_max_time_1e400.json]="2|line 3, column 47 (at /measure/max_time_s)|validate --config"
  [input_config_kv_beyond_2pow63.json]="2|K and V (B*H_kv*T_k*D = 1*1*2147483647*2147483647|validate --config"
  [input_config_fa2_and_cpu_flash.json]="2|as backend \"fa2\" and as backend \"cpu-flash\"|sweep --target cpu --quiet --out $TMP/dup --config"
  [input_results_median_1e400.json]="2|(at /cases/0/time_ms/median)|check"
  [input_config_page_size_100.json]="2|/sweeps/0/grid/page_size: page_size 100 is not a power of two|validate --config"
  [input_config_page_size_512.json]="2|/sweeps/0/grid/page_size: page_size 512 is out of range|validate --config"
  [input_config_paged_lengths.json]="2|/sweeps/0/grid/kv_layout: kv_layout \"paged\" with lengths (given at /sweeps/0/grid/lengths)|validate --config"
)
for f in "$HERE"/input_*; do
  name=$(basename "$f")
  rule=${RULES[$name]:-}
  [ -n "$rule" ] || fail "$name has no rule in run_input_gates.sh"
  IFS='|' read -r code text cmd <<< "$rule"
  # shellcheck disable=SC2086  # cmd is a list of words
  expect_exit "$code" "$BIN" $cmd "$f"
  expect_output "$text"
  expect_output "$name"
done
# The number's place: line 3 of the file, its JSON pointer.
expect_exit 2 "$BIN" validate --config "$HERE/input_config_max_time_1e400.json"
expect_output "number 1e400 is out of range"
# plan refuses the overflowing shape too (it printed negative GiB that "fit").
expect_exit 2 "$BIN" plan --config "$HERE/input_config_kv_beyond_2pow63.json" --memory 80GiB
expect_output "overflow 64-bit byte counts"
[ -z "$(ls "$TMP/dup" 2>/dev/null)" ] || fail "a refused sweep wrote to --out"

# ---- item 3: nesting limit and echo length, on every kind of input ----
python3 - "$TMP" "$CFG" <<'PY' || fail "generating deep inputs"
import json, sys
tmp, cfg = sys.argv[1], sys.argv[2]
deep = "[" * 100000 + "]" * 100000
text = open(cfg).read()
open(f"{tmp}/deep_config.json", "w").write(text.replace('"name": "tiny_cpu"', '"name": "tiny_cpu", "_x": ' + deep, 1))
open(f"{tmp}/deep_value.txt", "w").write(deep)
# One command-line argument holds at most 128 KiB (MAX_ARG_STRLEN): 60 000 levels for --set.
open(f"{tmp}/deep_arg.txt", "w").write("[" * 60000 + "]" * 60000)
open(f"{tmp}/huge_number.json", "w").write('{"name": ' + "9" * 100_000_000 + "e999}")
PY
for cmd in "validate --config" "plan --config" "sweep --target cpu --quiet --out $TMP/deep_out --config"; do
  # shellcheck disable=SC2086
  expect_exit 2 "$BIN" $cmd "$TMP/deep_config.json"
  expect_output "deep_config.json: line"
  expect_output "nested deeper than 512 levels"
done
expect_exit 2 "$BIN" validate --config "$CFG" --set "defaults.B=$(cat "$TMP/deep_arg.txt")"
expect_output "nested deeper than 512 levels"
expect_small_output
expect_exit 2 "$BIN" validate --config "$CFG" --set "measure.max_time_s=1e400"
expect_output "--set \"measure.max_time_s=1e400\": line 1, column 1"
expect_exit 2 "$BIN" validate --config "$TMP/huge_number.json"
expect_output "huge_number.json: line 1, column 10 (at /name): number 99999"
expect_output "(100000004 characters in all)"
expect_small_output
rm -f "$TMP/huge_number.json"

# A real results file, then the same with a deep config.echo, a deep device block, a deep
# jsonl line and a deep sweep.json.
expect_exit 0 "$BIN" sweep --config "$CFG" --target cpu --quiet --filter 'T16-D32/fp16/causal' \
  --out "$TMP/run"
python3 - "$TMP" <<'PY' || fail "generating deep results"
import sys
tmp = sys.argv[1]
deep = "[" * 100000 + "]" * 100000
text = open(f"{tmp}/run/results.json").read()
for key, opening in (("config", '"echo": {'), ("device", '"device": {')):
    assert opening in text, opening
    open(f"{tmp}/deep_{key}.json", "w").write(text.replace(opening, opening + '"deep": ' + deep + ", ", 1))
PY
for key in config device; do
  for cmd in "check" "merge -o $TMP/merged.json $TMP/run/results.json" "compare $TMP/run/results.json"; do
    # shellcheck disable=SC2086
    expect_exit 2 "$BIN" $cmd "$TMP/deep_$key.json"
    expect_output "deep_$key.json: line"
    expect_output "nested deeper than 512 levels"
  done
done
cp -r "$TMP/run" "$TMP/run_deep_jsonl"
cat "$TMP/deep_value.txt" >> "$TMP/run_deep_jsonl/results.jsonl"
expect_exit 2 "$BIN" sweep --resume "$TMP/run_deep_jsonl"
expect_output "results.jsonl: line 3, column 513: not a case result: JSON nested deeper"
cp -r "$TMP/run" "$TMP/run_deep_manifest"
printf '{"schema": "fa2bench/sweep-manifest/1", "x": %s}' "$(cat "$TMP/deep_value.txt")" \
  > "$TMP/run_deep_manifest/sweep.json"
expect_exit 2 "$BIN" sweep --resume "$TMP/run_deep_manifest"
expect_output "sweep.json: line 1, column"
expect_output "nested deeper than 512 levels"

# ---- item 4: numeric flags are finite and in range, named when not ----
for v in 1e20 inf nan -1 abc; do
  expect_exit 2 "$BIN" sweep --config "$CFG" --target cpu --quiet --case-timeout "$v" \
    --out "$TMP/flags"
  expect_output "--case-timeout"
done
for v in nan inf 1e400 -5GiB 0 "$(head -c 100000 /dev/zero | tr '\0' 9)"; do
  expect_exit 2 "$BIN" sweep --config "$CFG" --target cpu --quiet --memory-budget "$v" \
    --out "$TMP/flags"
  expect_output "--memory-budget"
  expect_small_output
  expect_exit 2 "$BIN" plan --config "$CFG" --memory "$v"
  expect_output "--memory"
done
for v in nan inf -1; do
  expect_exit 2 "$BIN" compare "$TMP/run/results.json" "$TMP/run/results.json" --threshold "$v"
  expect_output "--threshold"
done
expect_exit 2 "$BIN" sweep --config "$CFG" --target cpu --quiet --cpu-workers 100000 \
  --out "$TMP/flags"
expect_output "--cpu-workers"
[ -z "$(ls "$TMP/flags" 2>/dev/null)" ] || fail "a refused sweep wrote to --out"

# ---- item 7: regexes on RE2; a bad one names its flag ----
expect_exit 2 "$BIN" sweep --config "$CFG" --target cpu --quiet --filter '(unclosed' --out "$TMP/re"
expect_output "--filter (unclosed: not a valid regular expression"
expect_exit 2 "$BIN" sweep --config "$CFG" --target cpu --quiet --dump "$TMP/dump" \
  --dump-filter 'a{2,1}' --out "$TMP/re"
expect_output "--dump-filter a{2,1}: not a valid regular expression"
# Catastrophic for a backtracking engine; RE2 answers at once (here: no case matches).
start=$(date +%s)
expect_exit 2 timeout 60 "$BIN" sweep --config "$CFG" --target cpu --quiet \
  --filter '^(([a-z0-9/-]*)*)*X$' --out "$TMP/re"
expect_output "matches none of the config's cases"
[ $(( $(date +%s) - start )) -lt 20 ] || fail "the --filter regex took too long"

echo "ok"
