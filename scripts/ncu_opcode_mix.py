#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""What a kernel issues, beside another: reads the per-SASS-line counters of two
`ncu --page source --csv --print-source sass` files (`scripts/gpu/profile.sh case` writes them as
*_sass.csv) and prints the executed instructions per opcode (predicate and modifiers dropped)
for both, their difference and the stall samples, largest first.

    scripts/ncu_opcode_mix.py ours_sass.csv theirs_sass.csv [--top 28]
"""
import argparse
import collections
import csv
import re
import sys


def opcode_mix(path):
    rows = list(csv.reader(open(path)))
    head = next((i for i, r in enumerate(rows) if "Source" in r), None)
    if head is None:
        sys.exit(f"{path}: no 'Source' header (not an ncu source page?)")
    hdr = rows[head]
    src, ex = hdr.index("Source"), hdr.index("Instructions Executed")
    st = hdr.index("Warp Stall Sampling (All Samples)")
    executed, stalls = collections.Counter(), collections.Counter()
    for r in rows[head + 1:]:
        if len(r) <= max(src, ex, st) or not r[ex].replace(",", "").isdigit():
            continue
        text = re.sub(r"^@!?U?P\w+\s+", "", r[src].strip())
        op = text.split()[0].split(".")[0] if text else "?"
        executed[op] += int(r[ex].replace(",", ""))
        stalls[op] += int(r[st].replace(",", "") or 0)
    return executed, stalls


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ours")
    ap.add_argument("theirs")
    ap.add_argument("--top", type=int, default=28)
    args = ap.parse_args()
    a, sa = opcode_mix(args.ours)
    b, sb = opcode_mix(args.theirs)
    print(f"executed instructions: {sum(a.values()):,} against {sum(b.values()):,}")
    print(f"{'opcode':10s} {'ours':>12s} {'theirs':>12s} {'difference':>12s}  stall samples")
    for op in sorted(set(a) | set(b), key=lambda o: -(a[o] + b[o]))[:args.top]:
        print(f"{op:10s} {a[op]:>12,d} {b[op]:>12,d} {a[op] - b[op]:>+12,d}  {sa[op]:>6d} {sb[op]:>6d}")


if __name__ == "__main__":
    main()
