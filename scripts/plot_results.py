#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Plot fa2bench results files (schema fa2bench/results/1, or transformer results).

    scripts/plot_results.py RESULTS.json [MORE.json ...] [--out DIR] [--at-T 2048]
                            [--baseline naive] [--formats png,svg]

Writes to --out (default: plots/):
  memory_vs_T.{png,svg}   peak tracked memory against sequence length, log-log, per backend
  tflops_vs_T.{png,svg}   TFLOP/s against sequence length, per backend
  speedup_at_T<T>.{png,svg}  median-time speedup of every backend over --baseline at --at-T
                             (skipped with a note when no file has the baseline at that T)

Several files are overlaid; each series is labelled "<backend> — <device name> (<file>)".
Only cases with status "ok" and T_q == T_k are plotted; where one file holds several shapes
for the same backend and T (other B, H, D, dtype, causal), each shape group is its own series.
Backends are named by their role (the backend named in the config: `fa2` also for
`cpu-flash`), so CPU and GPU runs overlay.

Transformer results ("kind": "fa2bench-model-results": a transformer sweep's results.json,
scripts/torch_train_step.py's file) are plotted instead as
  model_peak_vs_T.{png,svg}     peak memory (GiB) of the training step against T, per backend
  model_step_ms_vs_T.{png,svg}  step time (ms) against T, per backend
so that PyTorch's file can be overlaid on ours:
    scripts/plot_results.py results/h200/seed_training_step/results.json \
        results/h200/peers/seed_training_step/torch_train_step.json --out plots/step
All files must then be transformer results (a mix with attention results is exit 2).

Exit codes: 0 plots written; 2 a file is not a fa2bench results file (or bad usage);
3 matplotlib is missing.
"""
import argparse
import json
import os
import sys
from collections import defaultdict

SCHEMA_PREFIX = "fa2bench/results/"
KNOWN_MAJOR = "1"
MODEL_KIND = "fa2bench-model-results"


def die(code, msg):
    print(f"plot_results.py: {msg}", file=sys.stderr)
    sys.exit(code)


def load(path):
    """The parsed results file; exits 2 with the file named when it is not one."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        die(2, f"{path}: cannot read: {e.strerror}")
    if not text.strip():
        die(2, f"{path}: empty file")
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        die(2, f"{path}: line {e.lineno}, column {e.colno}: not valid JSON: {e.msg}")
    if isinstance(doc, dict) and doc.get("kind") == MODEL_KIND:
        return load_model(path, doc)
    if not isinstance(doc, dict) or not isinstance(doc.get("schema"), str):
        die(2, f"{path}: not a fa2bench results file (no \"schema\")")
    schema = doc["schema"]
    if not schema.startswith(SCHEMA_PREFIX) or \
            schema[len(SCHEMA_PREFIX):].split(".")[0] != KNOWN_MAJOR:
        die(2, f"{path}: unknown schema \"{schema}\" (this script reads fa2bench/results/1)")
    if not isinstance(doc.get("cases"), list):
        die(2, f"{path}: /cases: missing or not an array")
    for i, c in enumerate(doc["cases"]):
        if not isinstance(c, dict) or "backend" not in c or not isinstance(c.get("params"), dict):
            die(2, f"{path}: /cases/{i}: not a case (needs backend and params)")
    return doc


def load_model(path, doc):
    """A transformer results document; exits 2 naming what an ok case lacks."""
    if doc.get("schema_version") != 1:
        die(2, f"{path}: /schema_version: expected 1, got {doc.get('schema_version')!r}")
    if not isinstance(doc.get("cases"), list):
        die(2, f"{path}: /cases: missing or not an array")
    for i, c in enumerate(doc["cases"]):
        if not isinstance(c, dict) or "backend" not in c or not isinstance(c.get("params"), dict) \
                or not isinstance(c["params"].get("T"), int):
            die(2, f"{path}: /cases/{i}: not a transformer case (needs backend and params.T)")
        if c.get("status") != "ok":
            continue
        for block, key in (("memory", "peak_bytes"), ("timing", "step_ms")):
            v = (c.get(block) or {}).get(key)
            if num(v) is None or v <= 0 or v == float("inf"):
                die(2, f"{path}: /cases/{i}/{block}/{key}: an ok case needs a finite number > 0, "
                       f"got {v!r}")
    return doc


def is_model(doc):
    return doc.get("kind") == MODEL_KIND


def model_shape_group(p):
    """Everything but T: "L12-h4096-nh32-B4/bf16/adamw"."""
    rec = "/recompute" if p.get("recompute") == "on" else ""
    return (f"L{p.get('layers')}-h{p.get('hidden')}-nh{p.get('heads')}-B{p.get('B')}/"
            f"{p.get('dtype')}/{p.get('optimizer')}{rec}")


def model_series_of(doc, label_suffix):
    """{(label, role, group): [(T, case), ...]} of the ok cases."""
    series = defaultdict(list)
    groups = {model_shape_group(c["params"]) for c in doc["cases"]}
    for c in doc["cases"]:
        if c.get("status") != "ok":
            continue
        role = c.get("role") or c["backend"]
        group = model_shape_group(c["params"])
        label = f"{role} — {label_suffix}"
        if len(groups) > 1:
            label += f" [{group}]"
        series[(label, role, group)].append((c["params"]["T"], c))
    for pts in series.values():
        pts.sort(key=lambda x: x[0])
    return series


def plot_model(all_series, args, plt, formats):
    """Peak GiB and step ms against T, one series per backend and file; returns paths."""
    written, plotted = [], 0
    for name, ylabel, value in [
        ("model_peak_vs_T", "peak memory of the training step (GiB)",
         lambda c: (c.get("memory") or {}).get("peak_bytes", 0) / 2**30),
        ("model_step_ms_vs_T", "training step time (ms)",
         lambda c: (c.get("timing") or {}).get("step_ms")),
    ]:
        fig, ax = plt.subplots(figsize=(8, 5))
        for k, (_, _, series) in enumerate(all_series):
            style = ["-", "--", ":", "-."][k % 4]  # one line style per file
            marker = "osD^v"[k % 5]
            for (label, _, _), pts in sorted(series.items()):
                xs = [T for T, _ in pts]
                ys = [value(c) for _, c in pts]
                if xs:
                    ax.plot(xs, ys, marker=marker, linestyle=style, label=label)
                    plotted += 1
        ax.set_xscale("log", base=2)
        ax.set_yscale("log", base=2)
        ax.set_xlabel("sequence length T")
        ax.set_ylabel(ylabel)
        ax.set_title(name.replace("_", " "))
        ax.grid(True, which="both", alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            # Beside the axes: backends that ran at one T only are single points the legend
            # would otherwise hide.
            ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1))
        written += save(fig, args.out, name, formats)
        plt.close(fig)
    if plotted == 0:
        print("plot_results.py: note: no case with status ok to plot", file=sys.stderr)
    return written


def device_name(doc):
    dev = doc.get("device")
    if isinstance(dev, dict) and dev.get("name"):
        return str(dev["name"])
    return doc.get("target") or "unknown device"


def shape_group(p):
    """Everything but T: "B1-H32-D128/fp16/causal"."""
    hkv = p.get("H_kv", p["H"])
    kv = f"-Hkv{hkv}" if hkv != p["H"] else ""
    return (f"B{p['B']}-H{p['H']}{kv}-D{p['D']}/{p['dtype']}/"
            f"{'causal' if p['causal'] else 'full'}")


def series_of(doc, label_suffix):
    """{(label, shape group): [(T, case), ...]} of the ok, square cases."""
    series = defaultdict(list)
    groups = {shape_group(c["params"]) for c in doc["cases"]}
    for c in doc["cases"]:
        p = c["params"]
        if c.get("status") != "ok" or p.get("T_q") != p.get("T_k"):
            continue
        role = c.get("role") or c["backend"]
        group = shape_group(p)
        label = f"{role} — {label_suffix}"
        if len(groups) > 1:
            label += f" [{group}]"
        series[(label, role, group)].append((p["T_q"], c))
    for pts in series.values():
        pts.sort(key=lambda x: x[0])
    return series


def num(v):
    return v if isinstance(v, (int, float)) and v == v else None


def save(fig, out, name, formats):
    written = []
    for ext in formats:
        path = os.path.join(out, f"{name}.{ext}")
        fig.savefig(path, bbox_inches="tight")
        written.append(path)
    return written


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", nargs="+", help="fa2bench results.json files")
    ap.add_argument("--out", default="plots", help="output directory (default: plots)")
    ap.add_argument("--at-T", type=int, default=2048, dest="at_T",
                    help="sequence length of the speedup bars (default 2048)")
    ap.add_argument("--baseline", default="naive",
                    help="backend (role or name) the speedup is measured against (default naive)")
    ap.add_argument("--formats", default="png,svg", help="comma-separated (default png,svg)")
    args = ap.parse_args(argv)

    docs = [(path, load(path)) for path in args.results]  # validate before importing matplotlib
    kinds = {is_model(doc) for _, doc in docs}
    if len(kinds) > 1:
        model = [p for p, d in docs if is_model(d)]
        attention = [p for p, d in docs if not is_model(d)]
        die(2, f"transformer results ({', '.join(model)}) and attention results "
               f"({', '.join(attention)}) cannot share plots; plot them separately")

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        die(3, "matplotlib is not installed (pip install matplotlib, or apt-get install "
               "python3-matplotlib)")

    formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    os.makedirs(args.out, exist_ok=True)
    several = len(docs) > 1
    all_series = []
    for path, doc in docs:
        suffix = f"{device_name(doc)} ({path})" if several else device_name(doc)
        make = model_series_of if is_model(doc) else series_of
        all_series.append((path, doc, make(doc, suffix)))
    if kinds == {True}:
        for p in plot_model(all_series, args, plt, formats):
            print(p)
        return 0

    written = []
    plotted = 0
    for name, ylabel, value, logy in [
        ("memory_vs_T", "peak tracked memory (MiB)",
         lambda c: num((c.get("memory") or {}).get("peak_bytes")), True),
        ("tflops_vs_T", "TFLOP/s (forward, flash-attention convention)",
         lambda c: num(c.get("tflops")), False),
    ]:
        fig, ax = plt.subplots(figsize=(8, 5))
        for k, (_, _, series) in enumerate(all_series):
            style = ["-", "--", ":", "-."][k % 4]  # one line style per file
            marker = "osD^v"[k % 5]
            for (label, _, _), pts in sorted(series.items()):
                xs, ys = [], []
                for T, c in pts:
                    v = value(c)
                    if v is None:
                        continue
                    xs.append(T)
                    ys.append(v / 2**20 if name == "memory_vs_T" else v)
                if xs:
                    ax.plot(xs, ys, marker=marker, linestyle=style, label=label)
                    plotted += 1
        ax.set_xscale("log", base=2)
        if logy:
            ax.set_yscale("log", base=2)
        ax.set_xlabel("sequence length T")
        ax.set_ylabel(ylabel)
        ax.set_title(name.replace("_", " "))
        ax.grid(True, which="both", alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize="small")
        written += save(fig, args.out, name, formats)
        plt.close(fig)

    # Speedup bars: baseline median / backend median at T = --at-T, per file and shape group.
    bars = []  # (label, speedup)
    for path, doc, series in all_series:
        by_group = defaultdict(dict)  # group -> role -> median
        for (label, role, group), pts in series.items():
            for T, c in pts:
                med = num((c.get("time_ms") or {}).get("median"))
                if T == args.at_T and med:
                    by_group[group][(role, label)] = med
        for group, meds in sorted(by_group.items()):
            base = [m for (role, _), m in meds.items() if role == args.baseline]
            if not base:
                continue
            for (role, label), m in sorted(meds.items()):
                if role != args.baseline:
                    bars.append((label, base[0] / m))
    if bars:
        fig, ax = plt.subplots(figsize=(8, 0.6 * len(bars) + 1.5))
        labels = [b[0] for b in bars]
        ax.barh(range(len(bars)), [b[1] for b in bars])
        ax.set_yticks(range(len(bars)))
        ax.set_yticklabels(labels, fontsize="small")
        ax.axvline(1.0, color="grey", linestyle="--", linewidth=1)
        for i, (_, s) in enumerate(bars):
            ax.text(s, i, f" {s:.2f}x", va="center")
        ax.set_xlabel(f"speedup over {args.baseline} (median time), T = {args.at_T}")
        ax.set_title(f"speedup over {args.baseline} at T = {args.at_T}")
        written += save(fig, args.out, f"speedup_at_T{args.at_T}", formats)
        plt.close(fig)
    else:
        print(f"plot_results.py: note: no file has baseline '{args.baseline}' and another "
              f"backend ok at T = {args.at_T}: no speedup plot", file=sys.stderr)

    if plotted == 0:
        print("plot_results.py: note: no case with status ok to plot", file=sys.stderr)
    for p in written:
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
