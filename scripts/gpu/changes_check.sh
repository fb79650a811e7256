#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# On the H200, one call after kernel changes made without a GPU, in order of what must not be
# lost when the call runs out of time (each step has its own time limit and everything lands
# in OUTDIR as it finishes):
#   1. the GPU tests of the changed kernels (FILTER, a gtest filter);
#   2. the fa3 backward on perf_train's D = 128 cases at T = 2048 and 8192 (fwd_bwd);
#   3. perf_fwd with fa3 and cudnn, and the compare table fa3 vs cudnn;
#   4. the sustained phase (measure.sustained_s) on the D = 256, T = 16K cases: energy per call
#      and the throttle reasons under sustained load (the power cap);
#   5. scripts/h200/decode.sh without naive (DECODE_BACKENDS), into OUTDIR/decode, if time is
#      left.
# With PACK set, OUTDIR is tarred there after every step, so a call cut short by its time limit
# still returns what finished (a device call returns only a few files).
#   [PACK=$OUT/check.tgz] scripts/h200/changes_check.sh BUILD_DIR OUTDIR FILTER [SECONDS]
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/h200/env.sh
build=$1 outdir=$2 filter=$3 budget=${4:-420}
bin=$build/fa2bench
mkdir -p "$outdir"
source scripts/h200/steps.sh

step tests 150 "$build"/tests/fa2bench_gpu_tests --gtest_filter="$filter" \
  > "$outdir/gpu_tests.log" 2>&1
grep -E "^\[  (PASSED|FAILED)" "$outdir/gpu_tests.log"
grep -m 8 -B2 -A6 "Failure" "$outdir/gpu_tests.log" | head -48

step "fa3 bwd" 60 "$bin" sweep --config configs/perf_train.json --backends fa3 \
  --filter 'T(2048|8192)-D128' --out "$outdir/fa3_bwd" --quiet > "$outdir/fa3_bwd.stdout" 2>&1

step "perf_fwd fa3 cudnn" 120 "$bin" sweep --config configs/perf_fwd.json --backends fa3 cudnn \
  --out "$outdir/perf_fwd" --quiet > "$outdir/perf_fwd.stdout" 2>&1
"$bin" compare "$outdir/perf_fwd/results.json" "$outdir/perf_fwd/results.json" --pair fa3=cudnn \
  --format md > "$outdir/compare_fa3_vs_cudnn.md" 2>/dev/null
grep -A6 "Geometric mean per pair" "$outdir/compare_fa3_vs_cudnn.md" | head -8

step sustained 60 "$bin" sweep --config configs/perf_fwd.json --backends fa3 cudnn \
  --filter 'T16384-D256' --set measure.sustained_s=2 --out "$outdir/sustained" --quiet \
  > "$outdir/sustained.stdout" 2>&1
python3 - "$outdir/sustained/results.json" <<'PY'
import json, sys
for c in json.load(open(sys.argv[1]))["cases"]:
    s = c.get("gpu_state", {}).get("sustained", {})
    print(f'{c["id"]:44s} sampled {c["tflops"]:6.1f} TFLOP/s; sustained {s.get("tflops", 0):6.1f}, '
          f'{s.get("power_w_mean") or 0:5.0f} W, {s.get("tflop_per_j") or 0:.3f} TFLOP/J, '
          f'{s.get("sm_clock_mhz_end")} MHz, {s.get("throttle_reasons_end")}')
PY

# Give SECONDS a margin below the device call's own limit, which kills without a tar.
last_step_decode "$build"
