#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The table of an interleaved Fa2BwdBench log (scripts/gpu/ab.sh): one
line per shape with each side's median fwd+bwd and backward time over the rounds, and its
ratio to the first side's. Log lines are "SIDE FA2BWDBENCH B=.. H=.. ... fwd_bwd_ms=.. bwd_ms=..".

    scripts/gpu/bench_table.py LOG "SIDE0 SIDE1 ..."
"""
import re
import statistics
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sides = sys.argv[2].split()
    runs = {}
    for line in open(sys.argv[1]):
        side, rest = line.split(" ", 1)
        shape = " ".join(re.findall(r"(?:B|H|T|D|causal)=\d+", rest))
        vals = dict(re.findall(r"(\w+_ms)=([\d.]+)", rest))
        runs.setdefault(shape, {}).setdefault(side, []).append(
            (float(vals["fwd_bwd_ms"]), float(vals["bwd_ms"])))
    base = sides[0]
    print(f"median ms over rounds, fwd+bwd / backward (ratio of backward to {base}'s)")
    print(f"{'shape':34s} " + " ".join(f"{s:>24s}" for s in sides))
    for shape, by_side in runs.items():
        if base not in by_side:
            continue
        base_bwd = statistics.median(x[1] for x in by_side[base])
        cells = []
        for s in sides:
            if s not in by_side:
                cells.append(f"{'-':>24s}")
                continue
            fb = statistics.median(x[0] for x in by_side[s])
            bwd = statistics.median(x[1] for x in by_side[s])
            cells.append(f"{fb:8.3f} / {bwd:7.3f} ({bwd / base_bwd:5.3f})")
        print(f"{shape:34s} " + " ".join(cells))


if __name__ == "__main__":
    main()
