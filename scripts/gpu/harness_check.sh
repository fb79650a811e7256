#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Issue 44 (verification on the GPU, wall time accounted) on a GPU machine, after
# scripts/gpu/build_on_device.sh, in one job of a few minutes:
#   1. the GPU tests of the device reference (device == host float64 reference on odd shapes,
#      a wrong O element and a wrong dK element caught, measure.verify full/none in the runner)
#      and the per-sample wall costs (time_ms with and without the L2 flush, one NVML reading);
#   2. perf_train and perf_fwd on fa3 (max_time_s 1), printing each sweep's wall/timed line;
#   3. an A/B of one slice of perf_train (T = 2048) with the host reference
#      (FA2BENCH_HOST_REFERENCE=1, the old path) against the device one: the verify seconds.
# About 3 minutes; at most 150 s of tests + 2 x 120 s + 2 x 90 s of sweeps (timeouts).
# Writes under ${OUT:-/tmp/harness_check}: <name>/ (the sweeps' results) and <name>.log.
#   scripts/gpu/harness_check.sh [BUILD_DIR]
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/gpu/env.sh
export LD_LIBRARY_PATH=$PWD/.carry/deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
build=${1:-build-h200}
bin=$build/fa2bench
out=${OUT:-/tmp/harness_check}
mkdir -p "$out"
status=0

echo "== 1. device reference GPU tests"
if timeout 150 "$build/tests/fa2bench_gpu_tests" --gtest_filter='DeviceReference.*:WallCosts.*' \
  > "$out/gpu_tests.log" 2>&1; then
  grep -E "^\[  (PASSED|FAILED) |^\[==========\]|^wall per sample" "$out/gpu_tests.log" | tail -4
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
  timeout "${limit:-120}" "$bin" sweep --target cuda --out "$out/$name" --quiet "$@" > "$out/$name.log" 2>&1
  local rc=$?
  echo "$name: exit $rc after $((SECONDS - start)) s; $(grep -E '^timed ' "$out/$name.log" | tail -1)"
  grep -cE '"checked": false' "$out/$name/results.json" 2>/dev/null |
    sed "s/^/  cases with accuracy.checked false: /"
}

echo "== 2. wall vs timed, fa3, device reference"
sweep perf_train --config configs/perf_train.json --backends fa3 --set measure.max_time_s=1
sweep perf_fwd --config configs/perf_fwd.json --backends fa3 --set measure.max_time_s=1

# Where the wall time of each sweep went, per case: setup, verify, the warm-ups, the timing
# phase beyond the timed samples and the warm-ups (the L2 flush, the event wait and the NVML
# reading of every sample), and the sweep's own time outside the cases (worker start, CUDA
# context, copy-bandwidth probe, results files).
python3 - "$out"/perf_train/results.json "$out"/perf_fwd/results.json <<'EOF'
import json, sys
for path in sys.argv[1:]:
    try:
        r = json.load(open(path))
    except (OSError, ValueError) as e:
        print(f"{path}: {e}")
        continue
    tot = dict(setup=0.0, verify=0.0, timing=0.0, total=0.0)
    timed = warm = 0.0
    runs = n = 0
    for c in r["cases"]:
        w, t = c.get("wall_ms"), c["time_ms"]
        if not w or c["status"] != "ok" or not t.get("n"):
            continue
        n += 1
        for k in tot:
            tot[k] += w[k]
        timed += t["mean"] * t["n"]
        warm += c["measure"]["warmup"] * t["median"]
        runs += t["n"] + c["measure"]["warmup"]
    if not n:
        continue
    wall = r.get("wall_s", 0) * 1e3
    extra = tot["timing"] - timed - warm
    print(f"{path}: {n} cases, wall {wall / 1e3:.1f} s, timed {timed / 1e3:.1f} s "
          f"(ratio {wall / max(timed, 1e-9):.2f}); per case ms: setup {tot['setup'] / n:.1f}, "
          f"verify {tot['verify'] / n:.1f}, warm-ups {warm / n:.1f}, timing beyond samples and "
          f"warm-ups {extra / n:.1f} ({extra / runs:.2f} per run), outside the cases "
          f"{(wall - tot['total']) / n:.1f}")
EOF

echo "== 3. A/B on perf_train T=2048 (fa3): device reference vs host reference"
limit=90 sweep ab_device --config configs/perf_train.json --backends fa3 --set measure.max_time_s=1 \
  --filter 'T2048'
limit=90 FA2BENCH_HOST_REFERENCE=1 sweep ab_host --config configs/perf_train.json --backends fa3 \
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
