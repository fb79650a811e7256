#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# On the H200, issue 18's evidence in one call: both seed configs and perf_fwd with every
# measurement field (gpu_state, raw samples, wall_ms, copy bandwidth), then perf_fwd a second
# time in a new process and `compare` of the two runs (the U test's verdicts on one config run
# twice). Writes OUTDIR/{seed_article,seed_notebook,perf_fwd_a,perf_fwd_b}/ and
# OUTDIR/compare_perf_fwd_a_vs_b.md; with PACK set, tarred there after every step.
#   [PACK=$OUT/fidelity.tgz] scripts/h200/fidelity.sh BUILD_DIR OUTDIR [SECONDS]
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/h200/env.sh
build=$1 outdir=$2 budget=${3:-480}
bin=$build/fa2bench
mkdir -p "$outdir"
source scripts/h200/steps.sh

for seed in seed_article seed_notebook; do
  step "$seed" 70 "$bin" sweep --config "configs/$seed.json" --out "$outdir/$seed" --quiet \
    > "$outdir/$seed.stdout" 2>&1
done
for run in a b; do
  step "perf_fwd $run" 150 "$bin" sweep --config configs/perf_fwd.json --out "$outdir/perf_fwd_$run" \
    --quiet > "$outdir/perf_fwd_$run.stdout" 2>&1
done
"$bin" compare "$outdir/perf_fwd_a/results.json" "$outdir/perf_fwd_b/results.json" --format md \
  > "$outdir/compare_perf_fwd_a_vs_b.md" 2>/dev/null
grep -h "Verdicts" "$outdir/compare_perf_fwd_a_vs_b.md"
pack
echo "total: $(($(date +%s) - steps_start))s"
