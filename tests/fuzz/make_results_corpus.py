#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Regenerates tests/fuzz/results_corpus/ (the seeds of fuzz_results.cpp) and its libFuzzer
dictionary tests/fuzz/results.dict (every key and string value of the seeds): results files of
small CPU sweeps (plain, training, varlen, paged, window, one shard, one filter), each cut to
a few cases and written compact, then deterministic mutations of them (wrong types, huge,
negative and non-finite-looking numbers, missing keys, the flags the gates read, deep nesting,
truncation). Run from the repository root with a built binary:

    tests/fuzz/make_results_corpus.py build/fa2bench
"""
import json
import os
import random
import subprocess
import sys
import tempfile

from json_paths import parent, paths

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
out = os.path.join(root, "tests", "fuzz", "results_corpus")
binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "build", "fa2bench")
CASES_KEPT = 3  # a seed's first cases: enough for every shape of case block, small to mutate

# name: the sweep's extra arguments (config first)
runs = {
    "ci_cpu": ["configs/ci_cpu.json"],
    "training": ["configs/cpu_training.json"],
    "varlen": ["configs/cpu_varlen.json"],
    "paged": ["configs/cpu_paged.json"],
    "window": ["configs/cpu_window.json"],
    "shard": ["configs/ci_cpu.json", "--shard", "1/2"],
    "filter": ["configs/ci_cpu.json", "--filter", "naive"],
}


def compact(doc):
    return json.dumps(doc, separators=(",", ":"))


seeds = {}
with tempfile.TemporaryDirectory() as tmp:
    for name, args in runs.items():
        dest = os.path.join(tmp, name)
        # A failing check (the filtered run) still writes results; only a missing file is fatal.
        subprocess.run([binary, "sweep", "--target", "cpu", "--config", args[0], *args[1:],
                        "--out", dest, "--quiet"], cwd=root, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False)
        doc = json.load(open(os.path.join(dest, "results.json")))
        doc["cases"] = doc["cases"][:CASES_KEPT]
        seeds[name] = doc

# Only what this script writes is replaced: inputs a fuzzer found (found_*) stay.
os.makedirs(out, exist_ok=True)
for old in os.listdir(out):
    if old.startswith(('seed_', 'mutant_')):
        os.remove(os.path.join(out, old))
for name, doc in seeds.items():
    with open(os.path.join(out, f"seed_{name}.json"), "w") as f:
        f.write(compact(doc))

rng = random.Random(4321)
weird = [None, True, False, -1, 0, 2**31, 2**63 - 1, -2**63, 1e308, -1e308, 1e-320, 0.5, "",
         "x" * 300, "\u00e9\u6f22", [], {}, [[[]]], {"a": {"b": {}}}, [1, "2", None], "NaN",
         "inf", "fa2", "ok", "error"]


base = seeds["ci_cpu"]
variants = []
for i in range(12):  # one to three values replaced anywhere
    doc = json.loads(compact(rng.choice(list(seeds.values()))))
    for _ in range(rng.randint(1, 3)):
        p = rng.choice([q for q in paths(doc) if q])
        parent(doc, p)[p[-1]] = rng.choice(weird)
    variants.append(compact(doc))
for i in range(4):  # one key removed
    doc = json.loads(compact(rng.choice(list(seeds.values()))))
    p = rng.choice([q for q in paths(doc) if q and isinstance(q[-1], str)])
    del parent(doc, p)[p[-1]]
    variants.append(compact(doc))
# The fields the gates decide by.
for edit in [("interrupted", True), ("interrupted", "yes"), ("shard", {"index": 3, "count": 2}),
             ("shard", {"index": -1, "count": 0}), ("filter", "("), ("filter", "a" * 2000),
             ("schema", "fa2bench/results/999"), ("kind", "fa2bench-model-results")]:
    doc = json.loads(compact(base))
    doc[edit[0]] = edit[1]
    variants.append(compact(doc))
doc = json.loads(compact(base)); doc["cases"] = doc["cases"] * 8  # duplicate ids
variants.append(compact(doc))
doc = json.loads(compact(base)); doc["cases"][0]["status"] = "timeout"
variants.append(compact(doc))
doc = json.loads(compact(base)); doc["cases"][0]["time_ms"]["samples"] = [1e308] * 500
variants.append(compact(doc))
doc = json.loads(compact(base)); doc["config"]["echo"]["checks"] = doc["config"]["echo"]["checks"] * 5
variants.append(compact(doc))
doc = json.loads(compact(seeds["training"])); doc["cases"][0]["accuracy"] = {"checked": True}
variants.append(compact(doc))
variants.append('{"schema":"fa2bench/results/1","cases":' + "[" * 300 + "]" * 300 + "}")
variants.append(compact(base)[: len(compact(base)) // 2])
variants.append('{"schema":"fa2bench/results/1","cases":[{"id":"\\ud800"}]}')
# Issue 41: where a negative value still reads (a check's measured quantity) and where one is
# refused (an error of -inf); the reader itself refuses a NUL byte (read_input_file) before this.
doc = json.loads(compact(base)); doc["checks"] = [{"name": "c", "verdict": "fail", "measured": "-inf"}]
variants.append(compact(doc))
doc = json.loads(compact(base)); doc["cases"][0]["accuracy"]["max_abs_err"] = "-inf"
variants.append(compact(doc))
for i, v in enumerate(variants):
    with open(os.path.join(out, f"mutant_{i:02d}.json"), "w") as f:
        f.write(v)

# Transformer results (the same gate, through its own reader): a tiny CPU step sweep and
# mutations of the fields the gate reads. A generator of their own, so the attention mutants
# above stay as they were.
with tempfile.TemporaryDirectory() as tmp:
    subprocess.run([binary, "sweep", "--target", "cpu", "--config", "configs/cpu_model_step.json",
                    "--set", "sweeps.0.grid.T=[33]", "--set", 'sweeps.0.grid.recompute=["off"]',
                    "--set", "measure.min_samples=1", "--set", "measure.max_samples=1",
                    "--out", os.path.join(tmp, "model"), "--quiet"], cwd=root,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    model = json.load(open(os.path.join(tmp, "model", "results.json")))
for old in os.listdir(out):
    if old.startswith("model_"):
        os.remove(os.path.join(out, old))
model_variants = {"seed": model}
mrng = random.Random(97)
for i in range(8):
    doc = json.loads(compact(model))
    for _ in range(mrng.randint(1, 3)):
        p = mrng.choice([q for q in paths(doc) if q])
        parent(doc, p)[p[-1]] = mrng.choice(weird)
    model_variants[f"mutant_{i:02d}"] = doc
for name, edit in [("interrupted", lambda d: d.update(interrupted=True)),
                   ("repeated", lambda d: d["cases"].append(d["cases"][0])),
                   ("error", lambda d: d["cases"][0].update(status="error")),
                   ("no_cases", lambda d: d.update(cases=[])),
                   ("echo_edited", lambda d: d["config_echo"].update(allow_case_errors=True))]:
    doc = json.loads(compact(model))
    edit(doc)
    model_variants[name] = doc
for name, doc in model_variants.items():
    with open(os.path.join(out, f"model_{name}.json"), "w") as f:
        f.write(compact(doc))

tokens = set()
for doc in seeds.values():
    for p in paths(doc):
        if p and isinstance(p[-1], str):
            tokens.add(p[-1])
        value = parent(doc, p)[p[-1]] if p else None
        if isinstance(value, str) and len(value) <= 40:
            tokens.add(value)
# libFuzzer's dictionary syntax escapes only \\, \" and \xNN: printable ASCII keeps it simple.
tokens = {t for t in tokens if t.isascii() and t.isprintable()}
with open(os.path.join(root, "tests", "fuzz", "results.dict"), "w") as f:
    f.write("# libFuzzer dictionary: the results format's keys and short string values "
            "(tests/fuzz/make_results_corpus.py).\n")
    for t in sorted(tokens):
        f.write(json.dumps(json.dumps(t)) + "\n")
print(f"{len(seeds)} seeds, {len(variants)} mutants, {len(model_variants)} transformer files in "
      f"{out}; {len(tokens)} dictionary tokens")
