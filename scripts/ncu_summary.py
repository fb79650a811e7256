#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Key Nsight Compute metrics of several profiled kernels, side by side, as a Markdown table.

Input: files written by `ncu --import REP --page raw --csv` (one kernel each, or several).
Rows: time, throughput, tensor-pipe and issue utilisation, occupancy, shared-memory bank
conflicts, L2/DRAM traffic, then the warp stall reasons (cycles per issued instruction),
largest first by their mean over the kernels.

  python3 scripts/ncu_summary.py /tmp/*.raw.csv > summary.md
"""
import csv
import pathlib
import re
import sys

# (label, metric) in print order; "a|b" takes the first of the names the export has; a metric a
# kernel lacks prints as "-".
METRICS = [
    ("time", "gpu__time_duration.sum"),
    ("grid", "launch__grid_size"),
    ("block", "launch__block_size"),
    ("registers/thread", "launch__registers_per_thread"),
    ("dyn smem/block (B)", "launch__shared_mem_per_block_dynamic"),
    ("achieved occupancy %", "sm__warps_active.avg.pct_of_peak_sustained_active"),
    ("SM throughput %", "sm__throughput.avg.pct_of_peak_sustained_elapsed"),
    ("tensor pipe active %", "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"),
    ("tensor inst pipe %", "sm__inst_executed_pipe_tensor_op_hmma.avg.pct_of_peak_sustained_active"),
    ("issue slots busy %", "smsp__issue_active.avg.pct_of_peak_sustained_active|sm__issue_active.avg.pct_of_peak_sustained_active|sm__inst_issued.avg.pct_of_peak_sustained_active"),
    ("L1/shared throughput %", "l1tex__throughput.avg.pct_of_peak_sustained_active"),
    ("warps eligible/scheduler", "smsp__warps_eligible.avg.per_cycle_active"),
    ("FMA pipe %", "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active"),
    ("ALU pipe %", "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active"),
    ("XU (ex2) pipe %", "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active"),
    ("LSU pipe %", "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active"),
    ("instructions", "smsp__inst_executed.sum"),
    ("smem ld bank conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"),
    ("smem ld wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
    ("L2 -> SM bytes", "lts__t_sectors_srcunit_tex_op_read.sum"),
    ("L2 hit rate %", "lts__t_sector_hit_rate.pct"),
    ("DRAM read bytes", "dram__bytes_read.sum"),
    ("DRAM throughput %", "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"),
]
STALL = re.compile(r"smsp__average_warps_issue_stalled_(\w+)_per_issue_active\.ratio$")


def read_kernels(path):
    """Yields (name, {metric: (value, unit)}) for each kernel row of a raw CSV export."""
    lines = [l for l in pathlib.Path(path).read_text().splitlines() if l.startswith('"')]
    rows = list(csv.reader(lines))
    if len(rows) < 3:
        return
    header, units = rows[0], rows[1]
    for row in rows[2:]:
        values = {h: (v, u) for h, v, u in zip(header, row, units)}
        name = pathlib.Path(path).name.replace(".raw.csv", "")
        yield name, values


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def cell(values, metric):
    metric = next((m for m in metric.split("|") if m in values), None)
    if metric is None:
        return "-"
    text, unit = values[metric]
    x = number(text)
    if x is None:
        return text
    if metric == "gpu__time_duration.sum":  # in whatever unit ncu chose
        return f"{x:.4g} {unit}"
    if metric == "lts__t_sectors_srcunit_tex_op_read.sum" and unit == "sector":
        x *= 32  # 32-byte sectors -> bytes
    elif unit in ("byte", "Kbyte", "Mbyte", "Gbyte"):
        x *= {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9}[unit]
    if abs(x) >= 1e6:
        return f"{x:.3e}"
    return f"{x:.4g}"


def main(paths):
    kernels = [k for p in paths for k in read_kernels(p)]
    if not kernels:
        print("ncu_summary: no kernel rows in the given files", file=sys.stderr)
        return 1
    print("| metric | " + " | ".join(name for name, _ in kernels) + " |")
    print("|---|" + "--:|" * len(kernels))
    for label, metric in METRICS:
        print(f"| {label} | " + " | ".join(cell(v, metric) for _, v in kernels) + " |")
    stalls = {}
    for _, values in kernels:
        for metric, (text, _) in values.items():
            m = STALL.match(metric)
            x = number(text)
            if m and x is not None:
                stalls.setdefault(m.group(1), []).append(x)
    ranked = sorted(stalls, key=lambda s: -sum(stalls[s]) / len(stalls[s]))
    for reason in ranked[:10]:
        metric = f"smsp__average_warps_issue_stalled_{reason}_per_issue_active.ratio"
        print(f"| stall {reason} (cycles/issue) | " +
              " | ".join(cell(v, metric) for _, v in kernels) + " |")
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1:]))
