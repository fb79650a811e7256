#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Where a kernel's warps wait: reads the per-SASS-line source counters that
`ncu --page source --csv --print-source sass` writes (`scripts/gpu/profile.sh case`) and prints the
stall reasons' shares over the whole kernel, then the instructions with the most stall samples.

    scripts/ncu_sass_stalls.py results/.../fwd_d128_sass.csv [--top 25]
"""
import argparse
import csv
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv")
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args()
    rows = list(csv.reader(open(args.csv)))
    head = next((i for i, r in enumerate(rows) if "Source" in r), None)
    if head is None:
        sys.exit(f"{args.csv}: no 'Source' header (not an ncu source page?)")
    hdr, data = rows[head], rows[head + 1:]
    col = {h: i for i, h in enumerate(hdr)}
    reasons = [h for h in hdr if h.startswith("stall_") and "Not Issued" not in h]
    totals = {h: 0.0 for h in reasons}
    lines = []
    for n, r in enumerate(data):
        if len(r) < len(hdr):
            continue
        d = {h: float(r[col[h]] or 0) for h in reasons}
        for h, v in d.items():
            totals[h] += v
        lines.append((sum(d.values()), n, r[col["Source"]].strip(), d))
    all_samples = sum(totals.values()) or 1.0
    print("stall reason shares:")
    for h, v in sorted(totals.items(), key=lambda x: -x[1])[:12]:
        print(f"  {h[6:]:20s} {100 * v / all_samples:5.1f}%")
    print(f"\ninstructions with the most stall samples (line in the source page, share, top reasons):")
    for s, n, src, d in sorted(lines, key=lambda x: -x[0])[:args.top]:
        top = sorted(d.items(), key=lambda x: -x[1])[:3]
        why = ", ".join(f"{k[6:]} {100 * v / all_samples:.1f}" for k, v in top if v > 0)
        print(f"  {n:5d} {100 * s / all_samples:5.1f}%  {src[:64]:64s} {why}")


if __name__ == "__main__":
    main()
