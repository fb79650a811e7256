#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs the GPU kernel tests under compute-sanitizer (memcheck, racecheck, synccheck) on small,
# odd shapes covering every kernel instantiation, writes a summary, and exits non-zero when any
# tool reports an error (or a test fails).
#
#   scripts/sanitize.sh [BUILD_DIR]        (default: build; needs a CUDA build and a GPU)
#
# Environment:
#   SANITIZE_TOOLS    default "memcheck racecheck synccheck"
#   SANITIZE_FILTER   a gtest filter for every tool (default below)
#   SANITIZE_CLASSES  fa2 grid classes to run under, default "small large" (see below)
#   SANITIZE_JOBS     tests run as this many concurrent sanitizer processes (default 4)
#   SANITIZE_OUT      default $BUILD_DIR/sanitize
#   SANITIZE_MAX_T    racecheck only: the fa2 sweep skips lengths above this (default 1000; T =
#                     4097 repeats the paths of 17 and 1000 at 16x the cost under racecheck)
#   SANITIZE_MEMCHECK_MAX_T  the same bound for memcheck (default: none, every length)
#
# Default filter: the kernel correctness tests of fa2bench_gpu_tests. Fa2KernelSweep, Fa2BwdSweep,
# Fa3KernelSweep, Fa3BwdSweep (on sm_90; they skip elsewhere)
# (the backward) and NaiveSweep instantiate every (dtype, head dim) kernel with odd lengths (1, 17, 127, 1000,
# 4097, T_q != T_k, both masks; racecheck stops at SANITIZE_MAX_T), plus the layout, GQA and decode tests
# (Fa2DecodeSweep: the split-KV and GQA-packed kernels and their combine; Fa2PagedSweep: the same
# kernels reading a paged KV cache through its page table). memcheck also runs the
# large ones (a >65535-block grid, a long sequence); racecheck and synccheck skip those two,
# which only repeat the same instantiations at sizes those tools make very slow.
#
# Grid classes: fa2 picks its tile table by grid size, and test shapes are all "small" grids,
# so every tool runs twice, with FA2BENCH_FA2_GRID_CLASS=small and =large, to reach both
# tables' kernels (the naive tests do not depend on it and run once, in the first class).
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
TESTS="$BUILD/tests/fa2bench_gpu_tests"
OUT=${SANITIZE_OUT:-$BUILD/sanitize}
TOOLS=${SANITIZE_TOOLS:-memcheck racecheck synccheck}
CLASSES=${SANITIZE_CLASSES:-small large}
JOBS=${SANITIZE_JOBS:-4}
KERNELS='*Fa2Kernel*:*Fa2Decode*:*Fa2PagedSweep*:*Fa2Bwd*:*Fa3Kernel*:*Fa3Bwd*:*NaiveKernel*:*NaiveSweep*:DeviceReference.*'
LARGE='*GridBeyond65535Blocks*:*LongSequencePastTileMultiples*:*Fa2Bwd.LongSequence*:*Fa3Bwd.LongSequence*'
CS=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}

[ -x "$TESTS" ] || { echo "sanitize: $TESTS not found: build with CUDA first" >&2; exit 2; }
[ -x "$CS" ] || { echo "sanitize: compute-sanitizer not found (set COMPUTE_SANITIZER)" >&2; exit 2; }
if ! nvidia-smi -L >/dev/null 2>&1; then echo "sanitize: no GPU" >&2; exit 2; fi
mkdir -p "$OUT"

# Full names of the tests a gtest filter selects, one per line.
list_tests() {
  "$TESTS" --gtest_filter="$1" --gtest_list_tests |
    awk '/^[^ ]/ {suite = $1} /^  / {print suite $1}'
}

# One sanitizer process over a ':'-joined list of tests; its log is $3.
run_shard() {
  local tool=$1 tests=$2 log=$3 cls=$4
  local extra=()
  [ "$tool" = memcheck ] && extra=(--leak-check full --check-api-memory-access yes)
  [ "$tool" = racecheck ] && extra=(--racecheck-report all)
  local max_t=
  [ "$tool" = racecheck ] && max_t=${SANITIZE_MAX_T:-1000}
  [ "$tool" = memcheck ] && max_t=${SANITIZE_MEMCHECK_MAX_T:-}
  FA2BENCH_UNDER_SANITIZER=$tool FA2BENCH_TEST_MAX_T=$max_t FA2BENCH_FA2_GRID_CLASS=$cls "$CS" --tool "$tool" --error-exitcode 86 --print-limit 50 \
    "${extra[@]}" "$TESTS" --gtest_filter="$tests" --gtest_brief=1 >"$log" 2>&1
  echo $? >"$log.rc"
}

summary="$OUT/summary.txt"
: >"$summary"
status=0
for tool in $TOOLS; do
  filter=${SANITIZE_FILTER:-$KERNELS}
  [ -z "${SANITIZE_FILTER:-}" ] && [ "$tool" != memcheck ] && filter="$KERNELS:-$LARGE"
  start=$(date +%s)
  logs=()
  first_class=1
  for cls in $CLASSES; do
    mapfile -t tests < <(list_tests "$filter")
    # The naive kernels do not depend on the fa2 grid class: once is enough.
    [ $first_class -eq 0 ] && mapfile -t tests < <(printf '%s\n' "${tests[@]}" | grep -i fa2)
    first_class=0
    for ((j = 0; j < JOBS; ++j)); do
      shard=()
      for ((i = j; i < ${#tests[@]}; i += JOBS)); do shard+=("${tests[i]}"); done
      [ ${#shard[@]} -eq 0 ] && continue
      log="$OUT/$tool.$cls.$j.log"
      logs+=("$log")
      run_shard "$tool" "$(IFS=:; echo "${shard[*]}")" "$log" "$cls" &
    done
    wait
  done
  secs=$(($(date +%s) - start))
  rc=0 errors=0 hazards=0 failed=0 ran=0
  for log in "${logs[@]}"; do
    r=$(cat "$log.rc" 2>/dev/null || echo 1)
    [ "$r" -ne 0 ] && rc=$r
    errors=$((errors + $(grep -Eo 'ERROR SUMMARY: [0-9]+' "$log" | awk '{s += $3} END {print s + 0}')))
    hazards=$((hazards + $(grep -Eo 'RACECHECK SUMMARY: [0-9]+ hazard' "$log" | awk '{s += $3} END {print s + 0}')))
    failed=$((failed + $(grep -c '^\[  FAILED  \]' "$log" || true)))
    ran=$((ran + $(grep -Eo '\[==========\] [0-9]+ tests? from' "$log" | tail -1 | awk '{print $2 + 0}')))
  done
  verdict=ok
  if [ "$rc" -ne 0 ] || [ "$errors" -gt 0 ] || [ "$hazards" -gt 0 ] || [ "$failed" -gt 0 ] ||
    [ "$ran" -eq 0 ]; then
    verdict=FAIL
    status=1
  fi
  line="$tool: $verdict (exit $rc, $ran test runs over grid classes [$CLASSES], $errors errors, $hazards hazards, $failed failed tests, ${secs}s, ${#logs[@]} processes) logs: $OUT/$tool.*.log"
  echo "$line" | tee -a "$summary"
done
echo "summary: $summary"
exit $status
