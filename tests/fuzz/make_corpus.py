#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Regenerates tests/fuzz/corpus/: the shipped configs, tests/data/bad_configs/*, and
deterministic mutations of them (wrong types, huge and negative numbers, deep nesting,
truncation, unicode, empty containers). Run from the repository root."""
import json, os, random, shutil, glob

from json_paths import parent, paths

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
out = os.path.join(root, "tests", "fuzz", "corpus")
# Only what this script writes is replaced: inputs a fuzzer found (found_*) stay.
os.makedirs(out, exist_ok=True)
for old in os.listdir(out):
    if old.startswith(('config_', 'bad_', 'mutant_')):
        os.remove(os.path.join(out, old))
seeds = sorted(glob.glob(os.path.join(root, "configs", "*.json"))) + \
        sorted(glob.glob(os.path.join(root, "tests", "data", "bad_configs", "*.json")))
for p in seeds:
    prefix = "config_" if "/configs/" in p else "bad_"
    shutil.copy(p, os.path.join(out, prefix + os.path.basename(p)))

base = json.load(open(os.path.join(root, "configs", "ci_cpu.json")))
rng = random.Random(1234)
weird = [None, True, -1, 0, 2**31, 2**63 - 1, -2**63, 1e308, -1e-308, 0.5, "", "x" * 300,
         "\u00e9\u6f22", [], {}, [[[]]], {"a": {"b": {}}}, [1, "2", None], "1e9", "NaN"]

def set_at(node, path, value):
    parent(node, path)[path[-1]] = value

all_paths = [p for p in paths(base) if p]
variants = []
for i in range(22):
    doc = json.loads(json.dumps(base))
    for _ in range(rng.randint(1, 3)):
        p = rng.choice([q for q in paths(doc) if q])
        try:
            set_at(doc, p, rng.choice(weird))
        except (KeyError, IndexError, TypeError):
            pass
    variants.append(json.dumps(doc))
doc = json.loads(json.dumps(base)); doc["sweeps"][0]["grid"]["T"] = {"from": 1, "to": 2**40, "mul": 2}
variants.append(json.dumps(doc))
doc = json.loads(json.dumps(base)); doc["sweeps"][0]["grid"]["T"] = list(range(1, 200))
variants.append(json.dumps(doc))
doc = json.loads(json.dumps(base)); doc["sweeps"] = doc["sweeps"] * 3
variants.append(json.dumps(doc))
doc = json.loads(json.dumps(base)); doc["checks"][0]["select"] = {"backend": ["fa2", 7], "T": [[1]]}
variants.append(json.dumps(doc))
variants.append("[" * 500 + "]" * 500)
variants.append('{"sweeps": ' + "[" * 200 + "]" * 200 + "}")
variants.append(json.dumps(base)[: len(json.dumps(base)) // 2])
variants.append('{"sweeps": [{"name": "s", "backends": ["fa2"], "grid": {"T": 1e400}}]}')
variants.append('{"sweeps": [{"name": "s", "backends": ["fa2"], "grid": {"B": 65536, "H": 65536, "T": 65536, "D": 256}}]}')
variants.append('{"name": "\\ud800", "sweeps": []}')
for i, v in enumerate(variants):
    with open(os.path.join(out, f"mutant_{i:02d}.json"), "w") as f:
        f.write(v)
print(f"{len(seeds)} seeds, {len(variants)} mutants in {out}")
