#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A/B timing of two fa2 backward builds in one device call: the disabled Fa2BwdBench harness
# of two fa2bench_gpu_tests binaries (A, the base; B, the candidate), interleaved A B A B ...
# for ROUNDS rounds so that clock and thermal drift fall on both alike, then one line per shape
# with each side's median fwd+bwd and backward time over the rounds and B / A.
#   [ROUNDS=3] [FA2BENCH_BENCH_DIMS=64,128,256] scripts/h200/bwd_ab.sh A_TESTS B_TESTS OUT_LOG
set -uo pipefail
a=$1 b=$2 log=$3
rounds=${ROUNDS:-3}
: > "$log"
for r in $(seq 1 "$rounds"); do
  for side in A B; do
    bin=$a
    [ "$side" = B ] && bin=$b
    "$bin" --gtest_also_run_disabled_tests --gtest_filter='*Fa2BwdBench*' 2>&1 |
      grep FA2BWDBENCH | sed "s/^/$side /" >> "$log"
  done
done
python3 - "$log" <<'PY'
import re, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    side, rest = line.split(" ", 1)
    shape = " ".join(re.findall(r"(?:B|H|T|D|causal)=\d+", rest))
    vals = dict(re.findall(r"(\w+_ms)=([\d.]+)", rest))
    runs.setdefault(shape, {}).setdefault(side, []).append(
        (float(vals["fwd_bwd_ms"]), float(vals["bwd_ms"])))
print(f"{'shape':34s} {'A fwd+bwd':>10s} {'B fwd+bwd':>10s} {'B/A':>6s} {'A bwd':>8s} {'B bwd':>8s} {'B/A':>6s}")
for shape, sides in runs.items():
    if "A" not in sides or "B" not in sides:
        continue
    med = {s: [statistics.median(v[i] for v in sides[s]) for i in (0, 1)] for s in "AB"}
    print(f"{shape:34s} {med['A'][0]:10.3f} {med['B'][0]:10.3f} {med['B'][0] / med['A'][0]:6.3f} "
          f"{med['A'][1]:8.3f} {med['B'][1]:8.3f} {med['B'][1] / med['A'][1]:6.3f}")
PY
