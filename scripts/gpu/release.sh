#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The device calls behind a release's committed results for this GPU, in stages that each fit
# one call:
#   test        build (build_on_device.sh), the whole ctest suite
#   sanitize    compute-sanitizer memcheck, racecheck and synccheck over every kernel
#               instantiation (scripts/sanitize.sh)
#   reproduce   every run results/MANIFEST.json lists for this GPU (scripts/reproduce.sh), into
#               OUTDIR/results, laid out as results/<gpu>/ is: copy it over results/<gpu>/, then
#               run scripts/results_manifest.py and scripts/readme_tables.py --write README.md
#   STAGES="test sanitize" scripts/gpu/release.sh [OUTDIR]   (default $OUT/release, else out/release)
# A GPU the manifest does not list yet: REPRODUCE_GPU=h200 runs the H200's entries on it.
set -uo pipefail
cd "$(dirname "$0")/../.."
outdir=${1:-${OUT:-out}/release}
stages=" ${STAGES:-test sanitize reproduce} "
mkdir -p "$outdir/logs"
scripts/gpu/build_on_device.sh > "$outdir/logs/build.log" 2>&1 || { tail -30 "$outdir/logs/build.log"; exit 1; }
tail -1 "$outdir/logs/build.log"
source scripts/gpu/env.sh
build=${FA2BENCH_BUILD_DIR:-build-h200}
gpu_state > "$outdir/logs/gpu_state.txt"
"$build"/fa2bench devices > "$outdir/logs/devices.txt"
if [[ $stages == *" test "* ]]; then
  (time ctest --test-dir "$build" --output-on-failure -j 4) > "$outdir/logs/ctest.log" 2>&1
  grep -E "tests passed|FAILED|Failed" "$outdir/logs/ctest.log" | tail -12
fi
if [[ $stages == *" sanitize "* ]]; then
  SANITIZE_JOBS=8 SANITIZE_OUT="$outdir/sanitize" timeout "${SANITIZE_TIMEOUT:-300}" \
    scripts/sanitize.sh "$build" | tail -4
fi
if [[ $stages == *" reproduce "* ]]; then
  # reproduce.sh runs build/fa2bench; point it at this build.
  mkdir -p build && ln -sf "$PWD/$build/fa2bench" build/fa2bench
  scripts/reproduce.sh ${REPRODUCE_GPU:+--gpu "$REPRODUCE_GPU"} "$outdir/results" 2>&1 |
    tee "$outdir/logs/reproduce.log" | grep -E '^\+|failed|checks'
fi
