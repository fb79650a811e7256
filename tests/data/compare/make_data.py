#!/usr/bin/env python3
"""Writes the crafted results files of tests/data/compare/ (run from anywhere; committed output).

base.json          NVIDIA H200, six cases (fa2 and naive, T = 1024 … 8192).
noise.json         every median within ±2% of base: all `same`.
slower.json        fa2 T=2048 takes 20% longer, intervals disjoint: one `slower` (regression).
mixed.json         same / slower / ambiguous / faster / ok→oom, one case only in base, one only here.
other_gpu.json     the same cases on an NVIDIA A100-SXM4-80GB, 3.2x the time.
other_config.json  base with a different config sha256 (warning, still compares).
old_extra.json     schema fa2bench/results/1.7, unknown fields everywhere, optional fields absent.
unknown_major.json schema fa2bench/results/2.
truncated.json     base.json cut in half.
empty.json         nothing.
pair_peer.json     --pair, BASE side: torch-flash and torch-cudnn at D 64 and 128 (T 1024, 2048),
                   torch-flash also at D=128 T=8192 (no fa2 case of that shape).
pair_ours.json     --pair, NEW side: fa2 on those shapes, 0.5x / 0.8x (D=64) and 1.0x / 1.21x
                   (D=128) torch-flash's time, torch-cudnn's time exactly; also D=256 (no peer).
pair_both.json     both of the above in one file (pairs inside one run).
"""
import copy
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
SHA = "a" * 64


def case(backend, T, median, spread=0.02, status="ok", D=128):
    B, H = 1, 32
    flops = 4.0 * B * H * T * T * D / 2
    c = {
        "id": f"{backend}/B{B}-H{H}-T{T}-D{D}/fp16/causal",
        "sweep": "seed", "backend": backend, "role": backend,
        "params": {"B": B, "H": H, "H_kv": H, "T_q": T, "T_k": T, "D": D, "dtype": "fp16",
                   "causal": True, "layout": "bhsd", "mode": "fwd"},
        "target": "cuda", "status": status, "reason": "",
        "time_ms": {"median": median, "mean": median, "min": median * (1 - 2 * spread),
                    "max": median * (1 + 2 * spread), "p10": median * (1 - spread),
                    "p90": median * (1 + spread), "stdev": median * spread / 2, "n": 20,
                    "first": median * 3},
        "flops": flops, "tflops": flops / (median * 1e-3) / 1e12, "gbps": 100.0,
        "memory": {"peak_bytes": (T * T * 64 if backend == "naive" else T * 32768),
                   "workspace_bytes": 0, "predicted_bytes": 0, "requested_bytes": 0},
        "accuracy": {"checked": True, "max_abs_err": 1e-4, "mean_abs_err": 1e-5,
                     "rel_l2_err": 1e-4, "nonfinite": 0, "rows_checked": 256},
    }
    if status != "ok":
        c["reason"] = "out of memory: 8.0 GiB requested"
        c["time_ms"] = {k: None for k in c["time_ms"]}
        c["time_ms"]["n"] = 0
        c["tflops"] = None
        c["gbps"] = None
        c["accuracy"] = {"checked": False, "max_abs_err": None, "mean_abs_err": None,
                         "rel_l2_err": None, "nonfinite": 0, "rows_checked": 0}
    return c


def results(device_name, cases, sha=SHA):
    return {
        "schema": "fa2bench/results/1",
        "tool": {"version": "0.1.0", "git": "0123456789ab", "build": "Release"},
        "host": {"hostname": "gpu-node-1", "cpu_threads": 16, "os": "Linux"},
        "device": {"kind": "cuda", "index": 0, "name": device_name, "cc": "9.0", "sms": 132,
                   "memory_bytes": 150121070592},
        "target": "cuda",
        "config": {"path": "configs/crafted.json", "sha256": sha, "echo": {}},
        "interrupted": False, "wall_s": 12.5, "checks": [], "cases": cases,
    }


def write(name, doc):
    with open(os.path.join(HERE, name), "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")


BASE = [case("fa2", 1024, 1.0), case("fa2", 2048, 2.0), case("fa2", 4096, 4.0, spread=0.12),
        case("naive", 1024, 3.0), case("naive", 4096, 30.0), case("naive", 8192, 120.0)]

base = results("NVIDIA H200", BASE)
write("base.json", base)

write("noise.json", results("NVIDIA H200", [case("fa2", 1024, 1.01), case("fa2", 2048, 1.98),
                                             case("fa2", 4096, 4.05, spread=0.12),
                                             case("naive", 1024, 3.03), case("naive", 4096, 29.7),
                                             case("naive", 8192, 121.0)]))

write("slower.json", results("NVIDIA H200", [case("fa2", 1024, 1.0), case("fa2", 2048, 2.4),
                                              case("fa2", 4096, 4.0, spread=0.12),
                                              case("naive", 1024, 3.0), case("naive", 4096, 30.0),
                                              case("naive", 8192, 120.0)]))

write("mixed.json", results("NVIDIA H200", [
    case("fa2", 1024, 1.01),                  # same
    case("fa2", 2048, 2.4),                   # slower
    case("fa2", 4096, 4.4, spread=0.12),      # +10%, intervals overlap: ambiguous
    case("naive", 1024, 2.0),                 # faster
    case("naive", 4096, 1, status="oom"),     # ok -> oom
    case("fa2", 8192, 16.0),                  # only in NEW (naive T=8192 only in BASE)
]))

write("other_gpu.json", results("NVIDIA A100-SXM4-80GB", [case(c["backend"], c["params"]["T_q"],
                                                                c["time_ms"]["median"] * 3.2)
                                                           for c in BASE]))

other = copy.deepcopy(base)
other["config"]["sha256"] = "b" * 64
write("other_config.json", other)

old = copy.deepcopy(base)
old["schema"] = "fa2bench/results/1.7"
old["future_top_level"] = {"anything": [1, 2, 3]}
old["device"]["future_field"] = "x"
for c in old["cases"]:
    c["future_case_field"] = {"nested": True}
    c["time_ms"]["p50"] = c["time_ms"]["median"]
    del c["role"], c["params"]["H_kv"], c["params"]["layout"], c["params"]["mode"]
    del c["accuracy"]["checked"], c["memory"]["predicted_bytes"]
write("old_extra.json", old)

unknown = copy.deepcopy(base)
unknown["schema"] = "fa2bench/results/2"
write("unknown_major.json", unknown)

text = json.dumps(base, indent=2)
with open(os.path.join(HERE, "truncated.json"), "w") as f:
    f.write(text[: len(text) // 2])
open(os.path.join(HERE, "empty.json"), "w").close()

# --pair: ours (fa2) against PyTorch's backends on the same shapes. (D, T): torch-flash ms, fa2 ms.
PAIR_TIMES = {(64, 1024): (2.0, 1.0), (64, 2048): (5.0, 4.0),
              (128, 1024): (3.0, 3.0), (128, 2048): (10.0, 12.1)}
PEER = [case("torch-flash", T, flash, D=D) for (D, T), (flash, _) in PAIR_TIMES.items()]
PEER += [case("torch-cudnn", T, ours, D=D) for (D, T), (_, ours) in PAIR_TIMES.items()]
PEER.append(case("torch-flash", 8192, 40.0, D=128))
OURS = [case("fa2", T, ours, D=D) for (D, T), (_, ours) in PAIR_TIMES.items()]
OURS.append(case("fa2", 1024, 2.0, D=256))
write("pair_peer.json", results("NVIDIA H200", PEER))
write("pair_ours.json", results("NVIDIA H200", OURS))
write("pair_both.json", results("NVIDIA H200", PEER + OURS))
