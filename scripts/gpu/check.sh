#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One device call after kernel changes made without a GPU, in the order of what must not be
# lost when the call runs out of time (each step has its own limit; OUTDIR is tarred to PACK
# after every step, so a call cut short still returns what finished):
#   1. the GPU tests matching FILTER (a gtest filter; default all);
#   2. with SANITIZE=1, compute-sanitizer memcheck, racecheck and synccheck over FILTER at
#      short lengths (scripts/sanitize.sh);
#   3. configs/perf_fwd.json with BACKENDS (default "fa2 fa3 cudnn"; CASES narrows it by case-id
#      regex), compared case by case against the committed results/<gpu>/perf_fwd run, so a
#      slowdown shows as "slower" verdicts, plus the fa3 / cuDNN pair table;
#   4. with TRAIN=1, configs/perf_train.json the same way against results/<gpu>/perf_train;
#   5. configs/decode.json with fa2 and cudnn, with what time is left.
#   [PACK=$OUT/check.tgz] [BACKENDS=...] [CASES=regex] [SANITIZE=1] [TRAIN=1] \
#     scripts/gpu/check.sh BUILD_DIR OUTDIR [FILTER] [SECONDS]
set -uo pipefail
cd "$(dirname "$0")/../.."
build=$1 outdir=$2 filter=${3:-*} budget=${4:-480}
bin=$build/fa2bench
mkdir -p "$outdir"
source scripts/gpu/steps.sh
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1 |
  grep -oE '\b[A-Z]{1,2}[0-9]{2,4}[A-Z]?\b' | head -n 1 | tr 'A-Z' 'a-z')
backends=${BACKENDS:-fa2 fa3 cudnn}

step tests 150 "$build"/tests/fa2bench_gpu_tests --gtest_filter="$filter" \
  > "$outdir/gpu_tests.log" 2>&1
grep -E "^\[  (PASSED|FAILED)" "$outdir/gpu_tests.log"
grep -m 8 -B2 -A6 "Failure" "$outdir/gpu_tests.log" | head -48

if [ "${SANITIZE:-0}" = 1 ]; then
  SANITIZE_OUT="$outdir/sanitize" SANITIZE_FILTER="$filter" SANITIZE_MAX_T=17 \
    SANITIZE_MEMCHECK_MAX_T=1000 SANITIZE_JOBS=8 step sanitize 260 scripts/sanitize.sh "$build"
fi

# CONFIG NAME: a sweep of BACKENDS, then compare against the committed run of this GPU.
sweep_and_compare() {
  local config=$1 name=$2 committed=results/$gpu/$2/results.json
  step "$name" 150 "$bin" sweep --config "configs/$config.json" --target cuda --backends $backends \
    --filter "${CASES:-.}" --out "$outdir/$name" --quiet > "$outdir/$name.stdout" 2>&1
  if [ -f "$committed" ]; then
    "$bin" compare "$committed" "$outdir/$name/results.json" --allow-missing --format md \
      > "$outdir/compare_${name}_vs_committed.md" 2> "$outdir/compare_$name.stderr"
    echo "compare $name against $committed: exit $?"
    grep -E "^\*\*Verdicts|Geometric mean" -A8 "$outdir/compare_${name}_vs_committed.md" | head -14
  else
    echo "no committed $committed for this GPU: nothing to compare against"
  fi
  if [[ " $backends " == *" fa3 "* && " $backends " == *" cudnn "* ]]; then
    "$bin" compare "$outdir/$name/results.json" "$outdir/$name/results.json" --pair fa3=cudnn \
      --format md > "$outdir/compare_${name}_fa3_vs_cudnn.md" 2>/dev/null
    grep -A6 "Geometric mean per pair" "$outdir/compare_${name}_fa3_vs_cudnn.md" | head -8
  fi
}
sweep_and_compare perf_fwd perf_fwd
[ "${TRAIN:-0}" = 1 ] && sweep_and_compare perf_train perf_train

# Keep 15 s for the last tar: a call cut at its own limit returns nothing.
last_step_decode "$build"
