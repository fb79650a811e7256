#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A/B timing of fa2 backward variants that one GPU-test binary selects by an environment
# variable (an experiment build's switch, e.g. FA2B_BWD_EXP): the disabled Fa2BwdBench harness
# once per value, values interleaved for ROUNDS rounds so that clock and thermal drift fall on
# all alike, then one line per shape with each value's median fwd+bwd and backward time over
# the rounds and its ratio to the first value's.
#   [ROUNDS=3] [FA2BENCH_BENCH_DIMS=64,128,256] scripts/h200/bwd_env_ab.sh TESTS VAR "V0 V1 ..." OUT_LOG
set -uo pipefail
bin=$1 var=$2 values=$3 log=$4
rounds=${ROUNDS:-3}
: > "$log"
for r in $(seq 1 "$rounds"); do
  for v in $values; do
    env "$var=$v" "$bin" --gtest_also_run_disabled_tests --gtest_filter='*Fa2BwdBench*' 2>&1 |
      grep FA2BWDBENCH | sed "s/^/$v /" >> "$log"
  done
done
python3 - "$log" "$values" <<'PY'
import re, statistics, sys
values = sys.argv[2].split()
runs = {}
for line in open(sys.argv[1]):
    side, rest = line.split(" ", 1)
    shape = " ".join(re.findall(r"(?:B|H|T|D|causal)=\d+", rest))
    vals = dict(re.findall(r"(\w+_ms)=([\d.]+)", rest))
    runs.setdefault(shape, {}).setdefault(side, []).append(
        (float(vals["fwd_bwd_ms"]), float(vals["bwd_ms"])))
base = values[0]
print("backward ms, median over rounds (ratio to " + base + ")")
print(f"{'shape':34s} " + " ".join(f"{v:>14s}" for v in values))
for shape, sides in runs.items():
    if base not in sides:
        continue
    b = statistics.median(x[1] for x in sides[base])
    cells = []
    for v in values:
        if v not in sides:
            cells.append(f"{'-':>14s}")
            continue
        m = statistics.median(x[1] for x in sides[v])
        cells.append(f"{m:7.3f} ({m / b:4.3f})")
    print(f"{shape:34s} " + " ".join(cells))
PY
