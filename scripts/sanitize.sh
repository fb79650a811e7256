#!/usr/bin/env bash
# Runs the GPU tests under compute-sanitizer (memcheck, racecheck, synccheck) on small, odd
# shapes covering every kernel instantiation, writes a summary, and exits non-zero when any
# tool reports an error (or a test fails).
#
#   scripts/sanitize.sh [BUILD_DIR]        (default: build; needs a CUDA build and a GPU)
#
# Environment: SANITIZE_TOOLS (default "memcheck racecheck synccheck"); SANITIZE_FILTER (a
# gtest filter for every tool; default below); SANITIZE_OUT (default $BUILD_DIR/sanitize).
#
# Default filter: the kernel correctness tests of fa2bench_gpu_tests. Fa2KernelSweep and
# NaiveSweep instantiate every (dtype, head dim) kernel with odd lengths (1, 17, 127, 1000,
# T_q != T_k, both masks), plus the layout, GQA and decode tests. memcheck also runs the large
# ones (a >65535-block grid, a long sequence); racecheck and synccheck skip those two, which
# only repeat the same instantiations at sizes those tools make very slow.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
TESTS="$BUILD/tests/fa2bench_gpu_tests"
OUT=${SANITIZE_OUT:-$BUILD/sanitize}
TOOLS=${SANITIZE_TOOLS:-memcheck racecheck synccheck}
# Kernel tests only (the runner tests time many samples: slow under the tools, and they
# exercise the same kernels). Benchmarks are disabled tests and never run.
KERNELS='*Fa2Kernel*:*NaiveKernel*:*NaiveSweep*'
LARGE='*GridBeyond65535Blocks*:*LongSequencePastTileMultiples*'
CS=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}

[ -x "$TESTS" ] || { echo "sanitize: $TESTS not found: build with CUDA first" >&2; exit 2; }
[ -x "$CS" ] || { echo "sanitize: compute-sanitizer not found (set COMPUTE_SANITIZER)" >&2; exit 2; }
if ! nvidia-smi -L >/dev/null 2>&1; then echo "sanitize: no GPU" >&2; exit 2; fi
mkdir -p "$OUT"

summary="$OUT/summary.txt"
: > "$summary"
status=0
for tool in $TOOLS; do
  log="$OUT/$tool.log"
  extra=()
  filter=${SANITIZE_FILTER:-$KERNELS}
  [ -z "${SANITIZE_FILTER:-}" ] && [ "$tool" != memcheck ] && filter="$KERNELS:-$LARGE"
  [ "$tool" = memcheck ] && extra=(--leak-check full --check-api-memory-access yes)
  [ "$tool" = racecheck ] && extra=(--racecheck-report all)
  start=$(date +%s)
  "$CS" --tool "$tool" --error-exitcode 86 --print-limit 50 "${extra[@]}" \
    "$TESTS" --gtest_filter="$filter" --gtest_brief=1 >"$log" 2>&1
  rc=$?
  secs=$(( $(date +%s) - start ))
  errors=$(grep -Eo 'ERROR SUMMARY: [0-9]+' "$log" | awk '{s += $3} END {print s + 0}')
  hazards=$(grep -Eo 'RACECHECK SUMMARY: [0-9]+ hazard' "$log" | awk '{s += $3} END {print s + 0}')
  failed=$(grep -c '^\[  FAILED  \]' "$log" || true)
  ran=$(grep -Eo '\[==========\] [0-9]+ tests? from' "$log" | tail -1 | awk '{print $2}')
  verdict=ok
  if [ "$rc" -ne 0 ] || [ "$errors" -gt 0 ] || [ "$hazards" -gt 0 ] || [ "$failed" -gt 0 ]; then
    verdict=FAIL
    status=1
  fi
  line="$tool: $verdict (exit $rc, ${ran:-?} tests, $errors errors, $hazards hazards, $failed failed tests, ${secs}s) log: $log"
  echo "$line" | tee -a "$summary"
done
echo "summary: $summary"
exit $status
