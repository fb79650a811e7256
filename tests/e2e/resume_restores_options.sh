# SPDX-License-Identifier: Apache-2.0
# sweep --resume restores every option that affects results from sweep.json and refuses a
# conflicting one (issue 13, item 5), resumes its own config whatever else is given, and
# accepts DIR/ (item 7).
source "$(dirname "$0")/lib.sh"
CFG="$SRC/tests/data/tiny_cpu.json"
D="$TMP/run"
# The first part of a sweep, with every measuring option set.
expect_exit 0 "$BIN" sweep --config "$CFG" --target cpu --quiet --filter 'T16-' --out "$D" \
  --memory-budget 1GiB --case-timeout 30 --isolate --dump "$TMP/dump" --dump-filter 'NONE^'
python3 - "$D/sweep.json" "$TMP/dump" <<'PY' || fail "sweep.json run options"
import json, sys
run = json.load(open(sys.argv[1]))["run"]
assert run == {"memory_budget": "1GiB", "case_timeout_s": 30.0, "isolated": True,
               "dump": sys.argv[2], "dump_filter": "NONE^", "overrides": {}}, run
PY
cp "$D/sweep.json" "$TMP/first_manifest.json"

# The environment overrides are part of how the cases were measured: a resume under others is
# refused, naming both.
expect_exit 2 env FA2BENCH_FA2_SPLITS=2 "$BIN" sweep --config "$CFG" --target cpu --resume "$D"
expect_output "the environment overrides differ from that sweep's"
expect_output "FA2BENCH_FA2_SPLITS"

# Each option given with another value is refused, naming it; nothing runs.
for flags in "--memory-budget 2GiB" "--case-timeout 5" "--no-isolate" "--dump $TMP/other" \
             "--dump-filter T48"; do
  # shellcheck disable=SC2086
  expect_exit 2 "$BIN" sweep --config "$CFG" --target cpu --resume "$D" $flags
  expect_output "${flags%% *} "
  expect_output "differs from that sweep's"
done
expect_exit 2 "$BIN" sweep --resume "$D" --overwrite
expect_output "--overwrite starts a new sweep"
cmp -s "$D/sweep.json" "$TMP/first_manifest.json" || fail "a refused resume rewrote sweep.json"
# The same values are fine; left out, they come back from sweep.json (the rest of the config
# runs with the budget, the timeout, isolation and the dump settings of the first part).
expect_exit 0 "$BIN" sweep --config "$CFG" --target cpu --resume "$D" --memory-budget 1024MiB
expect_output "isolated in worker processes"
expect_output "4 case(s) already finished, 4 to run"
python3 - "$D/sweep.json" "$TMP/first_manifest.json" <<'PY' || fail "restored run options"
import json, sys
now, first = (json.load(open(p)) for p in sys.argv[1:3])
assert now["run"]["case_timeout_s"] == 30.0 and now["run"]["isolated"] is True, now["run"]
assert now["run"]["dump"] == first["run"]["dump"], now["run"]
assert now["run"]["dump_filter"] == "NONE^", now["run"]
PY

# --resume D --filter X resumes D's config (it switched to the built-in quickstart).
expect_exit 0 "$BIN" sweep --resume "$D" --filter 'T48-'
expect_output "from $CFG"
expect_output "4 case(s) already finished, 0 to run"
# DIR/ is DIR (and the filter of the last resume comes back with the rest).
expect_exit 0 "$BIN" sweep --resume "$D/"
expect_output "4 case(s) already finished, 0 to run"
expect_exit 0 "$BIN" sweep --resume "$D/" --out "$D"
echo "ok"
