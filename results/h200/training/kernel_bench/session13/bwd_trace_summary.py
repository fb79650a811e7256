#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Reads the CSV of Fa2BwdBench.DISABLED_Trace (bwd_trace.patch, an -DFA2B_BWD_TRACE build) and
# says where the fa2 backward's warps wait: per warp, the mean cycles of each phase and of the
# two barriers, and which warp arrives last at each barrier (the one the others wait for).
#   bwd_trace_summary.py TRACE.csv
import collections
import csv
import statistics
import sys

rows = collections.defaultdict(dict)  # (cta, it) -> warp -> marks
with open(sys.argv[1]) as f:
    for r in csv.DictReader(f):
        m = [int(r[k]) for k in ("top", "pds_arrive", "pds_leave", "dkv_done", "dq_done")]
        rows[(int(r["cta"]), int(r["it"]))][int(r["warp"])] = m

phase = collections.defaultdict(list)  # (warp, name) -> cycles
last_pds = collections.Counter()
last_top = collections.Counter()
spread_pds, spread_top = [], []
for (cta, it), warps in rows.items():
    if len(warps) < 2:
        continue
    for w, m in warps.items():
        phase[(w, "S/dP")].append(m[1] - m[0])
        phase[(w, "wait P/dS")].append(m[2] - m[1])
        phase[(w, "dV/dK")].append(m[3] - m[2])
        phase[(w, "dQ")].append(m[4] - m[3])
        nxt = rows.get((cta, it + 1), {}).get(w)
        if nxt:
            phase[(w, "wait top")].append(nxt[0] - m[4])
    arrive = {w: m[1] for w, m in warps.items()}
    last_pds[max(arrive, key=arrive.get)] += 1
    spread_pds.append(max(arrive.values()) - min(arrive.values()))
    ends = {w: m[4] for w, m in warps.items()}
    if (cta, it + 1) in rows:
        last_top[max(ends, key=ends.get)] += 1
        spread_top.append(max(ends.values()) - min(ends.values()))

names = ["S/dP", "wait P/dS", "dV/dK", "dQ", "wait top"]
print("mean cycles per iteration, by warp")
print("warp " + "".join(f"{n:>12}" for n in names) + f"{'last P/dS':>11}{'last top':>10}")
for w in sorted({w for w, _ in phase}):
    cells = "".join(f"{statistics.mean(phase[(w, n)]) if phase[(w, n)] else 0:12.0f}" for n in names)
    print(f"{w:4d} {cells}{last_pds[w]:11d}{last_top[w]:10d}")
print(f"arrival spread at the P/dS barrier: mean {statistics.mean(spread_pds):.0f} cycles, "
      f"median {statistics.median(spread_pds):.0f}")
if spread_top:
    print(f"arrival spread at the loop-top barrier: mean {statistics.mean(spread_top):.0f} cycles, "
          f"median {statistics.median(spread_top):.0f}")
