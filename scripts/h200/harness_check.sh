#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Issue 44 (verification on the GPU, wall time accounted) on a GPU machine, after
# scripts/h200/build_on_device.sh, in one job of a few minutes:
#   1. the GPU tests of the device reference (device == host float64 reference on odd shapes,
#      a wrong O element and a wrong dK element caught, measure.verify full/none in the runner);
#   2. perf_train and perf_fwd on fa3 (max_time_s 1), printing each sweep's wall/timed line;
#   3. an A/B of one slice of perf_train (T = 2048) with the host reference
#      (FA2BENCH_HOST_REFERENCE=1, the old path) against the device one: the verify seconds.
# Writes under ${OUT:-/tmp/harness_check}: <name>/ (the sweeps' results) and <name>.log.
#   scripts/h200/harness_check.sh [BUILD_DIR]
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/h200/env.sh
export LD_LIBRARY_PATH=$PWD/.carry/deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
build=${1:-build-h200}
bin=$build/fa2bench
out=${OUT:-/tmp/harness_check}
mkdir -p "$out"
status=0

echo "== 1. device reference GPU tests"
if timeout 240 "$build/tests/fa2bench_gpu_tests" --gtest_filter='DeviceReference.*' \
  > "$out/gpu_tests.log" 2>&1; then
  grep -E "^\[  (PASSED|FAILED) |^\[==========\]" "$out/gpu_tests.log" | tail -3
else
  status=1
  echo "GPU tests FAILED (exit $?):"
  grep -E "Failure|FAILED|error|Expected|Which is|actual" "$out/gpu_tests.log" | head -40
fi

# One sweep, its exit code and its wall line ("timed X s of Y s wall (in the cases: ...)").
sweep() {
  local name=$1
  shift
  rm -rf "${out:?}/$name"
  local start=$SECONDS
  timeout 200 "$bin" sweep --target cuda --out "$out/$name" --quiet "$@" > "$out/$name.log" 2>&1
  local rc=$?
  echo "$name: exit $rc after $((SECONDS - start)) s; $(grep -E '^timed ' "$out/$name.log" | tail -1)"
  grep -cE '"checked": false' "$out/$name/results.json" 2>/dev/null |
    sed "s/^/  cases with accuracy.checked false: /"
}

echo "== 2. wall vs timed, fa3, device reference"
sweep perf_train --config configs/perf_train.json --backends fa3 --set measure.max_time_s=1
sweep perf_fwd --config configs/perf_fwd.json --backends fa3 --set measure.max_time_s=1

echo "== 3. A/B on perf_train T=2048 (fa3): device reference vs host reference"
sweep ab_device --config configs/perf_train.json --backends fa3 --set measure.max_time_s=1 \
  --filter 'T2048'
FA2BENCH_HOST_REFERENCE=1 sweep ab_host --config configs/perf_train.json --backends fa3 \
  --set measure.max_time_s=1 --filter 'T2048'
# The accuracy both paths report must agree (same rows, both float64 references): the worst
# max_abs_err of every case side by side.
python3 - "$out/ab_device/results.json" "$out/ab_host/results.json" <<'EOF' || status=1
import json, sys
dev, host = (json.load(open(p))["cases"] for p in sys.argv[1:3])
worst = 0.0
for a, b in zip(dev, host):
    for k in ("max_abs_err", "max_abs_err_dq", "max_abs_err_dk", "max_abs_err_dv"):
        x, y = a["accuracy"].get(k), b["accuracy"].get(k)
        if isinstance(x, (int, float)) and isinstance(y, (int, float)) and y > 0:
            worst = max(worst, abs(x - y) / y)
print(f"A/B: {len(dev)} cases; largest relative difference of a max_abs_err: {worst:.2e}"
      " (the backward's atomics may change its own rounding between runs)")
EOF
exit $status
