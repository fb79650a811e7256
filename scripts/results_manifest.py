#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Write results/MANIFEST.json from the committed results files, or check it (--check).

A results folder is a folder under results/<gpu>/ that holds one results file: fa2bench's
results.json (attention or transformer-step results) or a peer written by
scripts/torch_sdpa_baseline.py / scripts/torch_train_step.py (PyTorch) or
scripts/flash_attn_baseline.py (flash-attn-4). Every field of an entry comes from
that file (and the sweep.json beside it), never from a hand-written table, so the manifest
cannot claim a command or a GPU the results do not record:

  path     the folder, relative to the repository root
  gpu      h100 / h200 / ..., the product in the device block's name
  device   the device block's name
  config   the config the run expanded
  command  the command that reproduces it, with {out} for the output root (the folder that plays
           results/<gpu>/)
  commit   the tool's recorded git commit (null where the file records none: transformer
           results and the PyTorch peers, which record the torch version instead)
  torch    the PyTorch version of a peer
  flash_attn  the flash-attn-4 version of its peer runs
  date     the date of the repository commit that first held the results file's bytes (results
           files carry no date of their own); left out of --check, which must work in shallow
           clones

Usage: scripts/results_manifest.py [--root DIR] [--check]
"""
import argparse
import json
import os
import re
import subprocess
import sys

RESULT_NAMES = ("results.json", "torch_sdpa.json", "torch_train_step.json", "flash_attn.json")


def gpu_key(device_name):
    """'NVIDIA H200' -> 'h200', 'NVIDIA H100 80GB HBM3' -> 'h100'; the product token."""
    m = re.search(r"\b([A-Z]{1,2}\d{2,4}[A-Z]?)\b", device_name or "")
    return m.group(1).lower() if m else re.sub(r"\W+", "_", (device_name or "unknown").lower())


def results_file(folder):
    found = [n for n in RESULT_NAMES if os.path.isfile(os.path.join(folder, n))]
    if len(found) > 1:
        sys.exit(f"{folder}: more than one results file ({', '.join(found)}); one run per folder")
    return found[0] if found else None


def shell_quote(s):
    return s if re.fullmatch(r"[\w@%+=:,./{}-]+", s) else "'" + s.replace("'", "'\\''") + "'"


def fa2bench_command(folder, rel, data):
    """The sweep's command line from the sweep.json it wrote (its flags as given)."""
    cfg = data.get("config", {})
    path = cfg.get("path") if isinstance(cfg, dict) else cfg
    args, run = {}, {}
    sweep = os.path.join(folder, "sweep.json")
    if os.path.isfile(sweep):
        manifest = json.load(open(sweep))
        args, run = manifest.get("args", {}), manifest.get("run", {})
    cmd = ["build/fa2bench", "sweep", "--config", path]
    if args.get("backends"):
        cmd += ["--backends", ",".join(args["backends"])]
    if args.get("filter"):
        cmd += ["--filter", args["filter"]]
    for s in args.get("set", []):
        cmd += ["--set", s]
    if args.get("inputs"):
        cmd += ["--inputs", args["inputs"]]
    if run.get("memory_budget"):
        cmd += ["--memory-budget", run["memory_budget"]]
    if run.get("case_timeout_s"):
        cmd += ["--case-timeout", f"{run['case_timeout_s']:g}"]
    cmd += ["--target", data.get("target") or args.get("target") or "cuda"]
    cmd += ["--out", "{out}/" + rel]
    return " ".join(shell_quote(c) for c in cmd)


def peer_command(name, rel, data):
    """A peer's command: the config, the backends that ran, the logsumexp switch (PyTorch)."""
    cfg = data.get("config", {})
    path = cfg.get("path") if isinstance(cfg, dict) else cfg
    if name == "flash_attn.json":  # flash-attn-4: one backend, each case in its config's mode
        cmd = ["python3", "scripts/flash_attn_baseline.py", "--config", path]
    else:
        backends = sorted({c["backend"].removeprefix("torch-") for c in data.get("cases", [])})
        script = ("scripts/torch_sdpa_baseline.py" if name == "torch_sdpa.json"
                  else "scripts/torch_train_step.py")
        cmd = ["python3", script, "--config", path, "--backends", ",".join(backends)]
        if data.get("tool", {}).get("torch_lse"):
            cmd.append("--with-lse")
    cmd += ["--out", "{out}/" + rel + "/" + name]
    return " ".join(shell_quote(c) for c in cmd)


def added_date(root, path):
    """The date its exact bytes were first committed: --find-object follows the content
    through renames, which a path-based log loses when a folder is reorganised; -m looks into
    merge commits too (results can land with one)."""
    try:
        blob = subprocess.run(["git", "-C", root, "hash-object", path], capture_output=True,
                              text=True, check=True).stdout.strip()
        out = subprocess.run(["git", "-C", root, "log", "-m", "--format=%cs", "--find-object=" + blob],
                             capture_output=True, text=True, check=True).stdout.split()
        return out[-1] if out else None
    except (OSError, subprocess.CalledProcessError):
        return None


def entry(root, folder):
    name = results_file(folder)
    data = json.load(open(os.path.join(folder, name)))
    # Outputs go under {out}/ as they sit under results/<gpu>/, so one run of reproduce.sh into
    # results/<another gpu> lays out a new GPU's folders as the committed ones.
    rel = os.path.relpath(folder, os.path.join(root, "results")).split(os.sep, 1)[1]
    device = data.get("device", {}).get("name")
    tool = data.get("tool", {})
    cfg = data.get("config", {})
    e = {
        "path": os.path.relpath(folder, root),
        "gpu": gpu_key(device),
        "device": device,
        "config": cfg.get("path") if isinstance(cfg, dict) else cfg,
        "results_file": name,
        "command": (fa2bench_command(folder, rel, data) if name == "results.json"
                    else peer_command(name, rel, data)),
        "commit": tool.get("git") or None,
    }
    if tool.get("torch"):
        e["torch"] = tool["torch"]
    if tool.get("flash_attn"):
        e["flash_attn"] = tool["flash_attn"]
    e["date"] = added_date(root, os.path.join(folder, name))
    return e


def scan(root):
    base = os.path.join(root, "results")
    folders = []
    for dirpath, dirnames, _ in os.walk(base):
        dirnames.sort()
        if results_file(dirpath):
            folders.append(dirpath)
    return [entry(root, f) for f in sorted(folders)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    ap.add_argument("--check", action="store_true",
                    help="exit 1 when results/MANIFEST.json and the results folders disagree")
    a = ap.parse_args()
    root = os.path.abspath(a.root)
    out = os.path.join(root, "results", "MANIFEST.json")
    entries = scan(root)
    if not a.check:
        with open(out, "w") as f:
            json.dump({"schema": "fa2bench/results-manifest/1",
                       "generated_by": "scripts/results_manifest.py", "runs": entries}, f,
                      indent=2)
            f.write("\n")
        print(f"{os.path.relpath(out)}: {len(entries)} runs")
        return 0
    try:
        listed = json.load(open(out))["runs"]
    except (OSError, ValueError, KeyError) as err:
        print(f"{out}: unreadable ({err}); run scripts/results_manifest.py", file=sys.stderr)
        return 1
    problems = []
    have = {e["path"]: e for e in entries}
    said = {e["path"]: e for e in listed}
    problems += [f"{p}: results folder not in the manifest" for p in sorted(set(have) - set(said))]
    problems += [f"{p}: listed in the manifest, no results file there" for p in sorted(set(said) - set(have))]
    for p in sorted(set(have) & set(said)):
        for k, v in have[p].items():
            if k != "date" and said[p].get(k) != v:
                problems.append(f"{p}: {k} is {said[p].get(k)!r} in the manifest, {v!r} in the results")
    for msg in problems:
        print(msg, file=sys.stderr)
    if problems:
        print("results/MANIFEST.json is stale: run scripts/results_manifest.py", file=sys.stderr)
        return 1
    print(f"results/MANIFEST.json matches {len(entries)} results folders")
    return 0


if __name__ == "__main__":
    sys.exit(main())
