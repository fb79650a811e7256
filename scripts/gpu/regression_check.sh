#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# On the H200, after kernel changes made without a GPU: the whole GPU test suite, then
# perf_fwd with fa2 compared case by case against the committed run (results/h200/perf_fwd/),
# so a slowdown shows as "slower" verdicts in one table. Everything under OUTDIR.
#   scripts/h200/regression_check.sh BUILD_DIR OUTDIR [FILTER]
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/h200/env.sh
build=$1 outdir=$2 filter=${3:-.}
mkdir -p "$outdir"
start=$(date +%s)
timeout 420 "$build"/tests/fa2bench_gpu_tests > "$outdir/gpu_tests.log" 2>&1
echo "gpu tests: exit $? in $(( $(date +%s) - start ))s: $(grep -E '^\[  (PASSED|FAILED)' "$outdir/gpu_tests.log" | tr '\n' ' ')"
grep -E "^\[  FAILED  \]" "$outdir/gpu_tests.log" | head -20
"$build"/fa2bench sweep --config configs/perf_fwd.json --backends fa2 --filter "$filter" \
  --out "$outdir/perf_fwd_fa2" --quiet > "$outdir/perf_fwd_fa2.stdout" 2>&1
echo "perf_fwd fa2: exit $?"
rm -f "$outdir/perf_fwd_fa2/.fa2bench.lock"
"$build"/fa2bench compare results/h200/perf_fwd/results.json "$outdir/perf_fwd_fa2/results.json" \
  --format md > "$outdir/compare_fa2_vs_committed.md" 2> "$outdir/compare.stderr"
echo "compare against the committed perf_fwd: exit $?"
grep -E "^\*\*Verdicts|Geometric mean" -A8 "$outdir/compare_fa2_vs_committed.md" | head -14
