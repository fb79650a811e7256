#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the verdict_*.json files of this folder: small results files, each broken in one way
the gates must refuse (run_verdict_gates.sh says which gate and why). Run it from anywhere;
the files are committed, so this is needed only to change them.

The config echo holds integers, strings and booleans only, so the sha256 computed here equals
fa2bench's (sha256 of nlohmann's compact, key-sorted dump)."""
import copy
import hashlib
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

CONFIG = {
    "name": "verdict",
    "measure": {"warmup": 0, "min_samples": 1, "max_samples": 2, "verify_rows": 4,
                "l2_flush": False},
    "defaults": {"B": 1, "H": 2, "D": 32, "dtype": "fp16", "causal": True},
    "sweeps": [{"name": "s", "backends": ["naive", "fa2"], "grid": {"T": [16, 32, 48]}}],
    "checks": [
        {"name": "fa2_peak_below_1gb", "kind": "threshold", "metric": "peak_bytes",
         "select": {"backend": "fa2"}, "op": "<", "value": 1000000000},
        {"name": "no_nonfinite", "kind": "threshold", "metric": "nonfinite", "op": "==",
         "value": 0},
    ],
}


def sha256(echo):
    text = json.dumps(echo, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def case(backend, T, median):
    shape = f"B1-H2-T{T}-D32/fp16/causal"
    return {
        "id": f"{backend}/{shape}", "sweep": "s", "backend": backend, "role": backend,
        "params": {"B": 1, "H": 2, "H_kv": 2, "T_q": T, "T_k": T, "D": 32, "dtype": "fp16",
                   "causal": True, "layout": "bhsd", "mode": "fwd"},
        # As a sweep records it: the config's measure block (the rest at its defaults).
        "measure": dict(CONFIG["measure"]),
        "target": "cuda", "status": "ok", "reason": "",
        "time_ms": {"median": median, "mean": median, "min": median, "max": median,
                    "p10": median, "p90": median, "stdev": 0, "n": 2, "first": median},
        "flops": 4.0 * 2 * T * T * 32 / 2, "tflops": 1.0, "gbps": 1.0,
        "memory": {"peak_bytes": 4096 * T, "workspace_bytes": 0, "predicted_bytes": 4096 * T,
                   "requested_bytes": 0},
        "accuracy": {"checked": True, "max_abs_err": 0.0001, "mean_abs_err": 0.00001,
                     "rel_l2_err": 0.0001, "nonfinite": 0, "rows_checked": 4},
    }


def result_set(config=CONFIG):
    cases = [case(b, T, (2.0 if b == "naive" else 1.0) * T / 16)
             for b in ("naive", "fa2") for T in (16, 32, 48)]
    # the config's expansion order: per T, each backend
    cases.sort(key=lambda c: (c["params"]["T_q"], c["backend"] != "naive"))
    return {
        "schema": "fa2bench/results/1",
        "tool": {"name": "fa2bench", "version": "0.1.0"},
        "device": {"kind": "cuda", "name": "crafted"},
        "target": "cuda",
        "config": {"path": "verdict.json", "sha256": sha256(config), "echo": config},
        "interrupted": False,
        "wall_s": 1,
        "checks": [],
        "cases": cases,
    }


def fa2_at(rs, T):
    return next(c for c in rs["cases"] if c["backend"] == "fa2" and c["params"]["T_q"] == T)


def write(name, rs):
    with open(os.path.join(HERE, name), "w") as f:
        json.dump(rs, f, indent=1)
        f.write("\n")


def main():
    write("verdict_base.json", result_set())  # complete and sound: every gate passes it

    rs = result_set()
    rs["cases"] = rs["cases"][:3]
    rs["interrupted"] = True
    write("verdict_interrupted.json", rs)

    rs = result_set()
    del rs["cases"][4]
    write("verdict_missing_case.json", rs)

    for status in ("error", "timeout"):
        rs = result_set()
        c = fa2_at(rs, 32)
        c["status"] = status
        c["reason"] = "crafted " + status
        write(f"verdict_case_{status}.json", rs)

    # The same, in a case no check selects (only fa2's peak is checked): no verdict of a
    # check can fail on it, so only the gates' rule does.
    fa2_peak_only = copy.deepcopy(CONFIG)
    fa2_peak_only["checks"] = fa2_peak_only["checks"][:1]
    for status in ("error", "timeout"):
        rs = result_set(fa2_peak_only)
        c = next(c for c in rs["cases"] if c["backend"] == "naive" and c["params"]["T_q"] == 32)
        c["status"] = status
        c["reason"] = "crafted " + status
        write(f"verdict_unselected_case_{status}.json", rs)

    for name, median in (("inf", "inf"), ("null", None), ("zero", 0), ("negative", -1.0)):
        rs = result_set()
        fa2_at(rs, 48)["time_ms"]["median"] = median
        write(f"verdict_median_{name}.json", rs)
    rs = result_set()
    del fa2_at(rs, 48)["time_ms"]["median"]
    write("verdict_median_missing.json", rs)

    rs = result_set()
    del fa2_at(rs, 16)["memory"]
    write("verdict_no_memory_block.json", rs)

    rs = result_set()
    del fa2_at(rs, 16)["accuracy"]["nonfinite"]
    write("verdict_no_nonfinite.json", rs)

    # A loosened threshold edited into the echo; the recorded sha256 is the sweep's. fa2's
    # peak at T=48 breaks the recorded threshold (1 GB) and passes the edited one (1 TB), so
    # judging by the echo would pass a failing run.
    rs = result_set()
    rs["config"]["echo"] = copy.deepcopy(CONFIG)
    rs["config"]["echo"]["checks"][0]["value"] = 1000000000000
    fa2_at(rs, 48)["memory"]["peak_bytes"] = 2000000000
    write("verdict_echo_edited.json", rs)

    # A case the config never produces (T=64), appended to a complete set.
    rs = result_set()
    extra = copy.deepcopy(fa2_at(rs, 48))
    extra["id"] = extra["id"].replace("-T48-", "-T64-")
    extra["params"]["T_q"] = extra["params"]["T_k"] = 64
    rs["cases"].append(extra)
    write("verdict_extra_case.json", rs)

    # Every case crashed and the config has no check left (as after --backends overrides).
    no_checks = copy.deepcopy(CONFIG)
    no_checks["checks"] = []
    rs = result_set(no_checks)
    for c in rs["cases"]:
        c["status"] = "error"
        c["reason"] = "crafted crash"
    write("verdict_all_crashed_no_checks.json", rs)

    # One shard of three, alone (it holds naive T16 and fa2 T32, so its checks can pass).
    rs = result_set()
    rs["cases"] = [c for i, c in enumerate(rs["cases"]) if i % 3 == 0]
    rs["shard"] = {"index": 0, "count": 3}
    write("verdict_shard_0_of_3.json", rs)

    # compare NEW files (BASE: verdict_base.json)
    rs = result_set()
    rs["cases"] = []
    write("verdict_new_no_cases.json", rs)
    rs = result_set()
    rs["cases"] = [c for c in rs["cases"] if c["backend"] != "naive"]
    write("verdict_new_backend_missing.json", rs)


if __name__ == "__main__":
    main()
