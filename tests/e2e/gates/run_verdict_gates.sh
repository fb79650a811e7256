# SPDX-License-Identifier: Apache-2.0
# Issue 13's one rule, file by file: every verdict_* file of tests/e2e/gates/ must make its
# gate exit non-zero, naming the reason. $1: fa2bench, $2: source tree; FA2BENCH_FAULTY: the
# test binary with the faulty backends (sweep gates). The files are written by
# make_verdict_files.py (results) or by hand (the sweep configs).
source "$(dirname "$0")/../lib.sh"
G="$SRC/tests/e2e/gates"
BASE="$G/verdict_base.json"
FAULTY=${FA2BENCH_FAULTY:-$(dirname "$BIN")/tests/fa2bench_faulty}
[ -x "$FAULTY" ] || fail "test binary fa2bench_faulty not found (FA2BENCH_FAULTY)"

# The sound file passes every gate: the failures below come from what each file breaks.
expect_exit 0 "$BIN" check "$BASE"
expect_exit 0 "$BIN" merge "$BASE" -o "$TMP/base_merged.json"
expect_exit 0 "$BIN" compare "$BASE" "$BASE" --fail-on-regression

# GATE EXIT FILE TEXT [FLAGS]: the gate run on FILE (with FLAGS) must exit EXIT and print TEXT.
#   check: fa2bench check FILE; merge: fa2bench merge FILE -o ...;
#   compare: fa2bench compare verdict_base.json FILE --fail-on-regression;
#   sweep: fa2bench_faulty sweep --config FILE with the backends in the table.
CASES=(
  "check|1|verdict_interrupted.json|results incomplete: 3 of 6 cases (interrupted)"
  "check|1|verdict_missing_case.json|results incomplete: 5 of 6 cases; missing"
  "check|1|verdict_case_error.json|is error: crafted error"
  "check|1|verdict_case_timeout.json|is timeout: crafted timeout"
  "check|1|verdict_unselected_case_error.json|results_usable"
  "check|1|verdict_unselected_case_timeout.json|case naive/B1-H2-T32-D32/fp16/causal is timeout: crafted timeout"
  "check|1|verdict_median_inf.json|time_ms.median is inf"
  "check|1|verdict_median_null.json|time_ms.median is missing"
  "check|1|verdict_median_missing.json|time_ms.median is missing"
  "check|1|verdict_median_zero.json|time_ms.median is 0 (must be > 0)"
  "check|2|verdict_median_negative.json|/cases/5/time_ms/median: number -1.0 is negative"
  "check|1|verdict_no_memory_block.json|has no peak_bytes (its results have no memory block)"
  "check|1|verdict_no_nonfinite.json|has no nonfinite (its results have no accuracy.nonfinite)"
  "check|2|verdict_echo_edited.json|verdict_echo_edited.json: /config/echo was edited"
  "check|1|verdict_all_crashed_no_checks.json|results_usable"
  "check|1|verdict_new_backend_missing.json|results incomplete: 3 of 6 cases"
  "check|1|verdict_extra_case.json|case fa2/B1-H2-T64-D32/fp16/causal (sweep \"s\") is not in the config's expansion"
  "merge|1|verdict_interrupted.json|results incomplete: 3 of 6 cases (interrupted)"
  "merge|1|verdict_shard_0_of_3.json|shards 1/3, 2/3 missing"
  "merge|1|verdict_case_error.json|is error: crafted error"
  "merge|1|verdict_unselected_case_error.json|case naive/B1-H2-T32-D32/fp16/causal is error: crafted error"
  "merge|1|verdict_median_inf.json|time_ms.median is inf"
  "merge|1|verdict_all_crashed_no_checks.json|results_usable"
  "merge|1|verdict_extra_case.json|is not in the config's expansion"
  "compare|1|verdict_missing_case.json|only in BASE (missing in NEW)"
  "compare|1|verdict_new_no_cases.json|has no cases"
  "compare|1|verdict_new_backend_missing.json|backend naive is missing in NEW"
  "compare|1|verdict_interrupted.json|(interrupted)"
  "compare|1|verdict_case_error.json|ok→error"
  "compare|1|verdict_case_timeout.json|ok→timeout"
  "compare|1|verdict_median_inf.json|NEW time_ms.median is inf"
  "compare|1|verdict_median_null.json|NEW time_ms.median is missing"
  "compare|1|verdict_median_missing.json|NEW time_ms.median is missing"
  "compare|1|verdict_median_zero.json|NEW time_ms.median is 0"
  "compare|2|verdict_median_negative.json|/cases/5/time_ms/median: number -1.0 is negative"
  "compare|1|verdict_no_memory_block.json|no memory block"
  "compare|1|verdict_no_nonfinite.json|no accuracy.nonfinite count"
  "compare|1|verdict_all_crashed_no_checks.json|ok→error"
  "compare|1|verdict_shard_0_of_3.json|only in BASE (missing in NEW)"
  "compare|1|verdict_extra_case.json|is not in the config's expansion"
  "sweep:faulty-segv|1|verdict_sweep_dropped_checks.json|results_usable"
  "sweep:faulty-segv,fa2|1|verdict_sweep_unselected_error.json|is error"
  "sweep:faulty-hang|1|verdict_sweep_dropped_checks.json|is timeout|--case-timeout 1"
  "sweep:naive,fa2|1|verdict_sweep_filter_removes_selection.json|--filter fa2/ removed the 1 case this check selects|--filter fa2/"
)
covered=" "
for entry in "${CASES[@]}"; do
  IFS='|' read -r gate want file text flags <<<"$entry"
  covered+="$file "
  case $gate in
    check) expect_exit "$want" "$BIN" check "$G/$file" ;;
    merge) expect_exit "$want" "$BIN" merge "$G/$file" -o "$TMP/merged.json" ;;
    compare) expect_exit "$want" "$BIN" compare "$BASE" "$G/$file" --fail-on-regression ;;
    # shellcheck disable=SC2086  # flags is a list of words
    sweep:*) expect_exit "$want" "$FAULTY" sweep --config "$G/$file" --target cpu --isolate \
      --quiet --backends "${gate#sweep:}" --out "$(mktemp -d "$TMP/sweep.XXXX")" $flags ;;
    *) fail "unknown gate $gate" ;;
  esac
  expect_output "$text"
done

# A case in error in BASE and in NEW is no status change, but NEW still crashes: it fails, and
# the counts show it apart from the harmless not-ok-in-both (oom→oom).
expect_exit 1 "$BIN" compare "$G/verdict_case_error.json" "$G/verdict_case_error.json" \
  --fail-on-regression
expect_output "1 not ok in both (1 of them error/timeout in both); 0 regressions"
expect_output "failing: NEW case fa2/B1-H2-T32-D32/fp16/causal is error: crafted error"

# The escape hatches, each for its own kind of gap only.
expect_exit 0 "$BIN" merge "$G/verdict_shard_0_of_3.json" -o "$TMP/m.json" --allow-partial
expect_exit 1 "$BIN" merge "$G/verdict_interrupted.json" -o "$TMP/m.json" --allow-partial
expect_exit 0 "$BIN" compare "$BASE" "$G/verdict_missing_case.json" --fail-on-regression \
  --allow-missing
expect_exit 0 "$BIN" compare "$BASE" "$G/verdict_new_backend_missing.json" \
  --fail-on-regression --allow-missing
expect_exit 1 "$BIN" compare "$BASE" "$G/verdict_median_inf.json" --fail-on-regression \
  --allow-missing
expect_exit 1 "$BIN" compare "$BASE" "$G/verdict_interrupted.json" --fail-on-regression \
  --allow-missing
expect_output "results incomplete: 3 of 6 cases (interrupted)"
# check --config judges by the given config, not the edited echo.
python3 - "$G/verdict_echo_edited.json" "$TMP/verdict.json" <<'PY' || fail "config from echo"
import json, sys
echo = json.load(open(sys.argv[1]))["config"]["echo"]
json.dump(echo, open(sys.argv[2], "w"))
PY
expect_exit 0 "$BIN" check "$G/verdict_echo_edited.json" --config "$TMP/verdict.json"
# ... and the recorded config fails it: the edit is what would have passed it.
python3 - "$G/verdict_base.json" "$TMP/recorded.json" <<'PY' || fail "recorded config"
import json, sys
json.dump(json.load(open(sys.argv[1]))["config"]["echo"], open(sys.argv[2], "w"))
PY
expect_exit 1 "$BIN" check "$G/verdict_echo_edited.json" --config "$TMP/recorded.json"
expect_output "fa2_peak_below_1gb"
# "allow_case_errors": true lets a crashed case through the sweep gate (its checks still
# judge the other cases).
python3 - "$G/verdict_sweep_unselected_error.json" "$TMP/allowed.json" <<'PY' || fail "allow"
import json, sys
cfg = json.load(open(sys.argv[1]))
cfg["allow_case_errors"] = True
json.dump(cfg, open(sys.argv[2], "w"))
PY
expect_exit 0 "$FAULTY" sweep --config "$TMP/allowed.json" --target cpu --isolate --quiet \
  --backends faulty-segv,fa2 --out "$TMP/allowed"
expect_exit 0 "$FAULTY" check "$TMP/allowed/results.json"  # its echo names faulty-segv

# Every verdict_* file of the folder is exercised above.
for f in "$G"/verdict_*; do
  name=$(basename "$f")
  [ "$name" = verdict_base.json ] && continue
  [[ "$covered" == *" $name "* ]] || fail "$name is in tests/e2e/gates but not in run_verdict_gates.sh"
done
echo "ok: every verdict file fails its gate"
