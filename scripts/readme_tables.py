#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The README's headline tables, computed from the runs results/MANIFEST.json lists.

  scripts/readme_tables.py                 print every table, each between its markers
  scripts/readme_tables.py --check FILE    exit 1 when FILE's tables differ from the results

A table sits in the README between `<!-- tables:NAME begin -->` and `<!-- tables:NAME end -->`.
The numbers are never typed by hand: a new canonical run (scripts/results_manifest.py), then
this script, rewrites them; --check (ctest docs.readme_tables_match) fails on any drift.
--write FILE replaces the blocks in FILE.
"""
import argparse
import difflib
import json
import math
import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
GPU = "h200"  # the GPU whose runs the README shows; one table set per GPU keeps rows comparable
GIB = 1024 ** 3


def run(folder, gpu=GPU, required=True):
    """The results file of the manifest entry at results/<gpu>/<folder>, and the entry; (None,
    None) for a run the manifest lacks when not `required`."""
    manifest = json.load(open(os.path.join(ROOT, "results", "MANIFEST.json")))
    path = f"results/{gpu}/{folder}"
    for r in manifest["runs"]:
        if r["path"] == path:
            return json.load(open(os.path.join(ROOT, path, r["results_file"]))), r
    if not required:
        return None, None
    sys.exit(f"results/MANIFEST.json lists no run at {path}")


def source(*entries):
    """One line naming the files, the GPU and the commit each table comes from."""
    parts = []
    for e in entries:
        if e.get("commit"):
            who = f"commit {e['commit'][:7]}"
        elif e.get("flash_attn"):
            who = f"flash-attn-4 {e['flash_attn']}, PyTorch {e['torch']}"
        elif e.get("torch"):
            who = f"PyTorch {e['torch']}"
        else:
            who = "no commit recorded"
        parts.append(f"[`{e['path']}`]({e['path']}/) ({e['device']}, {who}, {e['date']})")
    return "Source: " + "; ".join(parts) + "."


def ok(c):
    return c.get("status") == "ok"


def mask(p):
    return "causal" if p.get("causal") else "full"


# The speed tables come from the H100 (the card most users have), where fa3, cuDNN, PyTorch and
# the FlashAttention project's flash-attn-4 ran in one session on one machine.
SPEED_GPU = "h100"


def speed_table(folder, backends, what):
    """TFLOP/s per shape (bf16) of our run of `folder` and its peers on SPEED_GPU."""
    ours, e1 = run(folder, SPEED_GPU)
    peer, e2 = run(f"peers/{folder}", SPEED_GPU)
    fa4, e3 = run(f"peers/fa4/{folder}", SPEED_GPU, required=False)
    tf = {}
    for c in ours["cases"] + peer["cases"] + (fa4["cases"] if fa4 else []):
        p = c["params"]
        if p.get("dtype") == "bf16" and ok(c):
            tf[(c["backend"], p["D"], mask(p), p["T_q"], p["B"], p["H"])] = c["tflops"]
    backends = [b for b in backends if any(k[0] == b for k in tf)]
    rows = ["| D | mask | B×H×T | " + " | ".join(backends) + " | fa3 / best peer |",
            "|---|---|---|" + "---:|" * (len(backends) + 1)]
    shapes = sorted({k[1:] for k in tf}, key=lambda s: (s[0], s[1] == "causal", s[2]))
    for d, m, t, b, h in shapes:
        cells = [tf.get((be, d, m, t, b, h)) for be in backends]
        peers = [x for be, x in zip(backends, cells) if be != "fa3" and be != "fa2" and x]
        ratio = cells[0] / max(peers) if cells[0] and peers else None
        rows.append(f"| {d} | {m} | {b}×{h}×{t} | " +
                    " | ".join(f"{x:.0f}" if x else "—" for x in cells) +
                    (f" | {ratio:.2f}× |" if ratio else " | — |"))
    return [f"{what} TFLOP/s (median), bf16, `configs/{folder}.json`; the peers measured in their "
            "own calls on the same machine in the same session; best peer: the fastest of "
            "cuDNN, flash-attn-4 and PyTorch on the shape.", ""] + rows + [
            "", source(*[e for e in (e1, e2, e3) if e])]


def speed():
    return speed_table("perf_fwd", ["fa3", "cudnn", "fa4", "fa2", "torch-flash"], "Forward")


def train_speed():
    return speed_table("perf_train", ["fa3", "cudnn", "fa4", "torch-flash"],
                       "Forward and backward (`fwd_bwd`, FLOPs 3.5× the forward's)")


def memory():
    res, e = run("seed_article")
    by = {(c["backend"], c["params"]["T_q"]): c for c in res["cases"]}
    ts = sorted({t for _, t in by})
    rows = ["| T | naive peak | fa2 peak | fa2 / naive |", "|---:|---:|---:|---:|"]
    for t in ts:
        n, f = by.get(("naive", t)), by.get(("fa2", t))
        if not (n and f):
            continue
        fp = f["memory"]["peak_bytes"] / GIB
        if ok(n):
            npk = n["memory"]["peak_bytes"] / GIB
            rows.append(f"| {t} | {npk:.2f} GiB | {fp:.3f} GiB | {fp / npk:.3f} |")
        else:
            asked = n["memory"].get("requested_bytes", 0) / GIB
            rows.append(f"| {t} | {n['status']} (an allocation of {asked:.0f} GiB) | {fp:.3f} GiB "
                        "| — |")
    return ["Peak tracked memory of one forward (inputs and outputs included), "
            "`configs/seed_article.json` (B = 4, H = 32, D = 128, bf16, causal).", ""] + rows + [
            "", source(e)]


def accuracy():
    rows = ["| config | dtype | backend | cases | max abs error of O | "
            "max abs error of dQ, dK, dV |", "|---|---|---|---:|---:|---:|"]
    entries = []
    for folder in ("seed_notebook", "seed_article", "seed_training"):
        res, e = run(folder)
        entries.append(e)
        order = []
        for c in res["cases"]:
            if c["backend"] not in order:
                order.append(c["backend"])
        for be in order:
            cs = [c for c in res["cases"] if c["backend"] == be and ok(c)
                  and c.get("accuracy", {}).get("max_abs_err") is not None]
            if not cs:
                continue
            o = max(c["accuracy"]["max_abs_err"] for c in cs)
            g = [max(c["accuracy"].get(f"max_abs_err_{x}", 0) or 0 for x in ("dq", "dk", "dv"))
                 for c in cs if c["accuracy"].get("grads_checked")]
            dt = "/".join(sorted({c["params"]["dtype"] for c in cs}))
            rows.append(f"| `{folder}` | {dt} | {be} | {len(cs)} | {o:.1e} | " +
                        (f"{max(g):.1e} |" if g else "— |"))
    return ["Largest error against the float64 reference over each backend's cases "
            "(sampled rows; every element checked for NaN/Inf).", ""] + rows + [
            "", source(*entries)]


def training_step():
    ours, e1 = run("seed_training_step")
    peer, e2 = run("peers/seed_training_step")
    cells, backends = {}, []
    for c in ours["cases"] + peer["cases"]:
        be, t = c["backend"], c["params"]["T"]
        if be not in backends:
            backends.append(be)
        if ok(c):
            cells[(be, t)] = (f"{c['memory']['peak_bytes'] / GIB:.1f} GiB, "
                              f"{c['timing']['step_ms']:.0f} ms")
        else:
            cells[(be, t)] = c["status"]
    ts = sorted({t for _, t in cells})
    rows = ["| T | " + " | ".join(backends) + " |", "|---:|" + "---|" * len(backends)]
    for t in ts:
        rows.append(f"| {t} | " + " | ".join(cells.get((be, t), "—") for be in backends) + " |")
    return ["One AdamW training step of the seed article's 12-layer model (hidden 4096, B = 4, "
            "bf16): peak memory and time per step, `configs/seed_training_step.json`.", ""] + rows + [
            "", source(e1, e2)]


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def gpus():
    """The same configs on the H100 and the H200: median-time ratio and fraction of each card's
    own peak, over the cases that are ok on both (ids matched, as `fa2bench compare` does)."""
    rows = ["| config | cases ok on both | H100 time / H200 time (geomean) | "
            "H100 % of peak | H200 % of peak | only ok on H200 |",
            "|---|---:|---:|---:|---:|---:|"]
    entries = []
    for folder in ("seed_notebook", "seed_article", "seed_training", "perf_fwd", "perf_train",
                   "decode"):
        a, ea = run(folder, "h100", required=False)
        b, eb = run(folder, "h200", required=False)
        if not (a and b):
            continue
        entries += [ea, eb]
        peak = lambda d, dt: (d.get("peak_tflops") or {}).get(dt)
        by_b = {(c.get("sweep"), c["id"]): c for c in b["cases"]}
        ratios, frac_a, frac_b, only_b = [], [], [], 0
        for c in a["cases"]:
            o = by_b.get((c.get("sweep"), c["id"]))
            if not o:
                continue
            if ok(o) and not ok(c):
                only_b += 1
            if not (ok(c) and ok(o)):
                continue
            ta, tb = c["time_ms"]["median"], o["time_ms"]["median"]
            if ta and tb and ta > 0 and tb > 0:
                ratios.append(ta / tb)
            dt = c["params"]["dtype"]
            pa, pb = peak(a["device"], dt), peak(b["device"], dt)
            if pa and pb and c.get("tflops") and o.get("tflops"):
                frac_a.append(c["tflops"] / pa)
                frac_b.append(o["tflops"] / pb)
        g, fa, fb = geomean(ratios), geomean(frac_a), geomean(frac_b)
        rows.append(f"| `{folder}` | {len(ratios)} | " + (f"{g:.2f}" if g else "—") + " | " +
                    (f"{100 * fa:.1f}" if fa else "—") + " | " + (f"{100 * fb:.1f}" if fb else "—") +
                    f" | {only_b} |")
    if not entries:
        return ["No configuration has a committed run on both GPUs yet: on an H100, "
                "`scripts/reproduce.sh --gpu h200 results/h100` then "
                "`scripts/results_manifest.py` add them."]
    return ["The same configs run on an H100 80 GB and an H200 141 GB (both 132 SMs at up to "
            "1980 MHz; HBM3 at 3.35 TB/s against HBM3e at 4.8 TB/s); % of peak is TFLOP/s over "
            "each card's dense peak for the dtype (geomean). Per case: "
            "`fa2bench compare results/h200/X/results.json results/h100/X/results.json "
            "[--normalize peak]`.", ""] + rows + ["", source(*entries)]


TABLES = {"speed": speed, "train_speed": train_speed, "memory": memory, "accuracy": accuracy, "training_step": training_step,
          "gpus": gpus}


def block(name):
    return "\n".join(TABLES[name]())


def replace_blocks(text):
    for name in TABLES:
        pat = re.compile(rf"(<!-- tables:{name} begin -->\n)(?:.*?\n)?(<!-- tables:{name} end -->)",
                         re.S)
        if not pat.search(text):
            sys.exit(f"no <!-- tables:{name} begin/end --> markers")
        text = pat.sub(lambda m: m.group(1) + block(name) + "\n" + m.group(2), text)
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--check", metavar="FILE")
    g.add_argument("--write", metavar="FILE")
    a = ap.parse_args()
    if a.check or a.write:
        path = a.check or a.write
        text = open(path).read()
        want = replace_blocks(text)
        if a.write:
            open(path, "w").write(want)
            return 0
        if want != text:
            sys.stdout.writelines(difflib.unified_diff(
                text.splitlines(True), want.splitlines(True), path, "from the results"))
            print(f"{path}: tables differ from the results; run scripts/readme_tables.py "
                  f"--write {path}", file=sys.stderr)
            return 1
        print(f"{path}: {len(TABLES)} tables match the results")
        return 0
    for name in TABLES:
        print(f"<!-- tables:{name} begin -->\n{block(name)}\n<!-- tables:{name} end -->\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
