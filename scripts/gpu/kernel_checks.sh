#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# On the H200, one call for kernels that have not yet run under compute-sanitizer: their GPU
# tests (FILTER), then memcheck, synccheck and racecheck over the same filter (scripts/sanitize.sh;
# racecheck at T <= 17, memcheck at T <= 1000), then, with the time left, the decode sweep with
# PyTorch beside it (scripts/h200/decode.sh without naive). Everything lands in OUTDIR; with
# PACK set it is tarred there after every step (scripts/h200/steps.sh).
#   [PACK=$OUT/checks.tgz] scripts/h200/kernel_checks.sh BUILD_DIR OUTDIR FILTER [SECONDS]
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/h200/env.sh
build=$1 outdir=$2 filter=$3 budget=${4:-480}
mkdir -p "$outdir"
source scripts/h200/steps.sh

step tests 120 "$build"/tests/fa2bench_gpu_tests --gtest_filter="$filter" \
  > "$outdir/gpu_tests.log" 2>&1
grep -E "^\[  (PASSED|FAILED)" "$outdir/gpu_tests.log"
grep -m 8 -B2 -A6 "Failure" "$outdir/gpu_tests.log" | head -48

SANITIZE_OUT="$outdir/sanitize" SANITIZE_FILTER="$filter" SANITIZE_MAX_T=17 \
  SANITIZE_MEMCHECK_MAX_T=1000 SANITIZE_JOBS=8 step sanitize 260 scripts/sanitize.sh "$build"

# Give SECONDS a margin below the device call's own limit, which kills without a tar.
last_step_decode "$build"
