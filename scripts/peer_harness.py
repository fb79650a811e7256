# SPDX-License-Identifier: Apache-2.0
"""What every peer script shares (torch_sdpa_baseline.py, flash_attn_baseline.py): fa2bench's
sampling loop, its FLOP and traffic counts, the float64 checks of outputs and gradients, the
plan's cases and the results file. A peer script adds only how its library runs one case."""
import hashlib, json, math, os, platform, re, socket, sys, time

from fa2bench_cases import expand_cases

SPIN_CYCLES = 400_000  # ~0.2 ms at 2 GHz, longer than PyTorch's dispatch of one SDPA call
MODES = ("fwd", "bwd", "fwd_bwd")
# FLOPs of each mode as a multiple of the forward's (flash-attention's convention, as fa2bench).
MODE_FLOPS = {"fwd": 1.0, "bwd": 2.5, "fwd_bwd": 3.5}
REF_CHUNK_ROWS = 1024  # query rows per float64 reference chunk (bounds its T_q x T_k buffers)


def die(who, msg, code=2):
    print(f"{who}: {msg}", file=sys.stderr)
    sys.exit(code)


def quantile(xs, q):
    xs = sorted(xs)
    pos = q * (len(xs) - 1)
    lo = int(math.floor(pos)); hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def stats(samples):
    n = len(samples)
    mean = sum(samples) / n
    var = sum((x - mean) ** 2 for x in samples) / (n - 1) if n > 1 else 0.0
    return {"median": quantile(samples, 0.5), "mean": mean, "min": min(samples),
            "max": max(samples), "p10": quantile(samples, 0.1), "p90": quantile(samples, 0.9),
            "stdev": math.sqrt(var), "n": n}


def head_dim_v(p):
    """The head dim of V and O: params.D_v where a case gives V and O their own, else D."""
    return p.get("D_v", p["D"])


def pair_flops(p):
    """FLOPs per (query row, key) pair and batch-head: 2*D for the score, 2*D_v for the output
    (4*D where D_v = D)."""
    return 2.0 * (p["D"] + head_dim_v(p))


def min_traffic_bytes(p):
    """fa2bench's minimal traffic of a case (src/core/shape_algebra.cpp min_traffic_bytes): Q, K,
    V, O and the LSE once (K and V with the KV heads, so GQA and decode count the cache once); the
    backward adds dO and the three gradients and re-reads the forward's tensors. A packed
    variable-length batch holds its real tokens only, a padded one B * max(lengths)."""
    e = {"fp16": 2, "bf16": 2, "fp32": 4}[p["dtype"]]
    packed = "lengths" in p and p.get("packing") == "packed"
    q_rows = sum(p["lengths"]) if packed else p["B"] * p["T_q"]
    k_rows = sum(p["lengths"]) if packed else p["B"] * p["T_k"]
    # Q and O (dQ and dO), K and V (dK and dV): Q and K are D wide, V and O D_v wide.
    q_pair = q_rows * p["H"] * (p["D"] + head_dim_v(p))
    kv_pair = k_rows * p["H_kv"] * (p["D"] + head_dim_v(p))
    io = q_pair * e + kv_pair * e + q_rows * p["H"] * 4
    grad_io = q_pair * e + kv_pair * e
    mode = p.get("mode", "fwd")
    return io if mode == "fwd" else io + grad_io if mode == "bwd" else 2 * io + grad_io


def varlen_useful_flops(p):
    """fa2bench's useful FLOPs of a variable-length batch: each sequence at its own length."""
    f = sum(pair_flops(p) * p["H"] * n * n for n in p["lengths"])
    return f / (2 if p["causal"] else 1)


def varlen_block(p):
    """The results' `varlen` block (src/io/results_json.cpp varlen_block)."""
    tokens = sum(p["lengths"])
    useful = varlen_useful_flops(p)
    dense = pair_flops(p) * p["B"] * p["H"] * p["T_q"] * p["T_k"] / (2 if p["causal"] else 1)
    return {"total_tokens": tokens,
            "padding_ratio": p["B"] * p["T_q"] / tokens if tokens else 1.0,
            "useful_flops": useful,
            "executed_flops": dense if p["packing"] == "padded" else useful}


def time_samples(torch, step, m, flush, spin_cycles=SPIN_CYCLES):
    """fa2bench's sampling loop (as run_case's): warm-up, then L2 flush, GPU spin and one event
    pair per sample until the spread target, max_samples or max_time_s."""
    for _ in range(int(m.get("warmup", 3))):
        o = step(); del o
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    samples, t0 = [], time.time()
    while len(samples) < int(m.get("max_samples", 100)):
        if m.get("l2_flush", True):
            flush.zero_()
        # A short GPU spin keeps PyTorch's host-side dispatch (Python, the SDPA dispatcher,
        # cuDNN graph-cache lookups: tens of microseconds) out of the timed region, as
        # fa2bench's C++ launch is kept out by its L2 flush: the host queues start, kernel and
        # stop while the GPU still spins, so they run back to back.
        torch.cuda._sleep(spin_cycles)
        start.record(); o = step(); stop.record(); del o; stop.synchronize()
        samples.append(start.elapsed_time(stop))
        if len(samples) >= int(m.get("min_samples", 10)):
            s = stats(samples)
            if (s["p90"] - s["p10"]) / s["median"] <= float(m.get("target_rel_spread", 0.02)):
                break
            if time.time() - t0 >= float(m.get("max_time_s", 5)):
                break
    return stats(samples)


def verify_sequences(torch, seqs, outs, causal, max_rows):
    """Rows of the first and last non-empty sequences against float64; seqs[i] = (q, k, v) of
    sequence i as [heads, L, D], outs[i] its output [H, L, D]."""
    picked = sorted({i for i in (0, len(seqs) - 1)})
    max_abs, sum_abs, n, d2, r2 = 0.0, 0.0, 0, 0.0, 0.0
    for i in picked:
        q, k, v = seqs[i]
        H, L, D = q.shape
        group = H // k.shape[0]
        idx = torch.linspace(0, L - 1, max(1, min(L, max_rows // len(picked))),
                             device="cuda").round().long().unique()
        for h in (0, H - 1):
            qd = q[h, idx].double(); kd = k[h // group].double(); vd = v[h // group].double()
            s = qd @ kd.T / math.sqrt(D)
            if causal:
                j = torch.arange(L, device="cuda")[None, :]
                s = s.masked_fill(j > idx[:, None], float("-inf"))
            ref = torch.softmax(s, dim=-1) @ vd
            e = (outs[i][h, idx].double() - ref).abs()
            max_abs = max(max_abs, e.max().item()); sum_abs += e.sum().item(); n += e.numel()
            d2 += (e ** 2).sum().item(); r2 += (ref ** 2).sum().item()
    nonfinite = int(sum((~torch.isfinite(o)).sum().item() for o in outs))
    return {"checked": True, "max_abs_err": max_abs, "mean_abs_err": sum_abs / n,
            "rel_l2_err": math.sqrt(d2 / r2) if r2 > 0 else math.sqrt(d2),
            "nonfinite": nonfinite, "rows_checked": n // seqs[0][0].shape[-1]}


def error_stats(torch, got, ref):
    """max/mean abs and relative L2 error of `got` against float64 `ref` (same shape)."""
    got = got.double()
    e = (got - ref).abs()
    if not torch.isfinite(got).all():
        return {"max_abs_err": float("inf"), "mean_abs_err": None, "rel_l2_err": float("inf")}
    r2 = (ref ** 2).sum().item(); d2 = (e ** 2).sum().item()
    return {"max_abs_err": e.max().item(), "mean_abs_err": e.mean().item(),
            "rel_l2_err": math.sqrt(d2 / r2) if r2 > 0 else math.sqrt(d2)}


def verify_grads(torch, q, k, v, d_o, g, causal):
    """dQ, dK, dV of the first and last (batch, KV head) against a float64 autograd reference
    over every query row of their group, in chunks of query rows."""
    dq, dk, dv = g
    B, H, Tq, D = q.shape
    Hkv, Tk = k.shape[1], k.shape[2]
    group = H // Hkv
    got = {"dq": [], "dk": [], "dv": []}; ref = {"dq": [], "dk": [], "dv": []}
    for bhk in sorted({0, B * Hkv - 1}):
        b, hk = divmod(bhk, Hkv)
        heads = slice(hk * group, (hk + 1) * group)
        kd = k[b, hk].double().requires_grad_(True); vd = v[b, hk].double().requires_grad_(True)
        dk_ref = torch.zeros_like(kd); dv_ref = torch.zeros_like(vd); dq_ref = []
        for i0 in range(0, Tq, REF_CHUNK_ROWS):
            rows = torch.arange(i0, min(Tq, i0 + REF_CHUNK_ROWS), device="cuda")
            qd = q[b, heads, i0:i0 + len(rows)].double().requires_grad_(True)
            with torch.enable_grad():
                s = qd @ kd.T / math.sqrt(D)
                # Rows that see no key (causal, T_q > T_k) output 0 and pass no gradient: their
                # scores are zeroed before the softmax (no NaN) and their output masked after.
                seen = torch.ones_like(rows, dtype=torch.bool)
                if causal:
                    j = torch.arange(Tk, device="cuda")[None, :]
                    seen = rows + (Tk - Tq) >= 0
                    s = s.masked_fill(j > rows[:, None] + (Tk - Tq), float("-inf"))
                    s = s.masked_fill(~seen[:, None], 0.0)
                out = (torch.softmax(s, dim=-1) @ vd) * seen[:, None]
                gq, gk, gv = torch.autograd.grad(out, (qd, kd, vd),
                                                 d_o[b, heads, i0:i0 + len(rows)].double())
            dq_ref.append(gq); dk_ref += gk; dv_ref += gv
        ref["dq"].append(torch.cat(dq_ref, dim=1).flatten()); got["dq"].append(dq[b, heads].flatten())
        ref["dk"].append(dk_ref.flatten()); got["dk"].append(dk[b, hk].flatten())
        ref["dv"].append(dv_ref.flatten()); got["dv"].append(dv[b, hk].flatten())
    acc = {"grads_checked": True,
           "nonfinite_grad": int(sum((~torch.isfinite(t)).sum().item() for t in (dq, dk, dv))),
           "key_rows_checked": len({0, B * Hkv - 1}) * Tk}
    for name in ("dq", "dk", "dv"):
        for metric, value in error_stats(torch, torch.cat(got[name]), torch.cat(ref[name])).items():
            acc[f"{metric}_{name}"] = value
    return acc


def verify(torch, q, k, v, out, causal, max_rows):
    B, H, Tq, D = q.shape
    Hkv, Tk = k.shape[1], k.shape[2]
    heads = sorted({0, B * H - 1})
    rows_per = max(1, min(Tq, max_rows // len(heads)))
    max_abs, sum_abs, n, d2, r2 = 0.0, 0.0, 0, 0.0, 0.0
    for bh in heads:
        b, h = divmod(bh, H)
        hk = h // (H // Hkv)
        idx = torch.linspace(0, Tq - 1, rows_per, device="cuda").round().long().unique()
        qd = q[b, h, idx].double(); kd = k[b, hk].double(); vd = v[b, hk].double()
        s = qd @ kd.T / math.sqrt(D)
        if causal:
            j = torch.arange(Tk, device="cuda")[None, :]
            s = s.masked_fill(j > idx[:, None] + (Tk - Tq), float("-inf"))
        ref = torch.softmax(s, dim=-1).nan_to_num(0.0) @ vd
        got = out[b, h, idx].double()
        e = (got - ref).abs()
        max_abs = max(max_abs, e.max().item()); sum_abs += e.sum().item(); n += e.numel()
        d2 += (e ** 2).sum().item(); r2 += (ref ** 2).sum().item()
    return {"checked": True, "max_abs_err": max_abs, "mean_abs_err": sum_abs / n,
            "rel_l2_err": math.sqrt(d2 / r2) if r2 > 0 else math.sqrt(d2),
            "nonfinite": int((~torch.isfinite(out)).sum().item()), "rows_checked": n // out.shape[-1]}


def with_mode(c, mode):
    """Plan case `c` in `mode`: params.mode and the id's mode tag (none for fwd), as fa2bench
    writes them."""
    c = dict(c, params=dict(c["params"], mode=mode))
    key = c["shape_key"]
    for tag in ("/bwd", "/fwd_bwd"):
        if key.endswith(tag):
            key = key[:-len(tag)]
    c["shape_key"] = key if mode == "fwd" else f"{key}/{mode}"
    return c




def mode_step(mode, fwd, grads):
    """The timed region of a case's mode, as a function returning (output, gradients or None),
    and the dict that keeps the forward a `bwd` case's backward reuses (the caller fills it once,
    untimed, and clears it). fwd() runs the forward; grads(out, keep) the backward of out
    (keep: retain the graph for the next sample)."""
    saved = {}

    def step():
        if mode == "fwd":
            return fwd(), None
        if mode == "fwd_bwd":
            out = fwd()
            return out, grads(out, False)
        if "out" not in saved:
            saved["out"] = fwd()
        return saved["out"], grads(saved["out"], True)

    return step, saved


def case_flops(p):
    """fa2bench's FLOPs of a case: useful ones for a variable-length batch, times the mode's."""
    if "lengths" in p:
        flops = varlen_useful_flops(p)
    else:
        flops = pair_flops(p) * p["B"] * p["H"] * p["T_q"] * p["T_k"] / (2 if p["causal"] else 1)
    return flops * MODE_FLOPS[p.get("mode", "fwd")]


def case_record(c, name, r, backend_info):
    """One fa2bench results case of backend `name` on plan case `c`, from a peer's result `r`
    ({status, reason, time_ms, peak, io, accuracy} and optional extra fields under "extra")."""
    p, m = c["params"], c["measure"]
    flops = case_flops(p)
    case = {"id": f"{name}/{c['shape_key']}", "sweep": c["sweep"], "backend": name, "role": name,
            "params": p, "measure": m, "target": "cuda", "status": r["status"],
            "reason": r["reason"], "flops": flops,
            "time_ms": r.get("time_ms", {"n": 0}), "tflops": None, "gbps": None,
            "backend_info": backend_info,
            "memory": {"peak_bytes": r.get("peak", 0),
                       "workspace_bytes": max(0, r.get("peak", 0) - r.get("io", 0) * 2),
                       "predicted_bytes": 0, "requested_bytes": 0},
            "accuracy": r.get("accuracy", {"checked": False, "nonfinite": 0, "rows_checked": 0})}
    case.update(r.get("extra", {}))
    if "lengths" in p:
        case["varlen"] = varlen_block(p)
    if r["status"] == "ok":
        case["tflops"] = flops / (r["time_ms"]["median"] * 1e-3) / 1e12
        case["gbps"] = min_traffic_bytes(p) / (r["time_ms"]["median"] * 1e-3) / 1e9
    return case


def plan_shapes(fa2bench, config, who, only_shapes_of=None, id_filter=None, mode=None):
    """The config's distinct shapes (one plan case each), as `fa2bench plan` expands them
    (`mode` re-labels every case: with_mode), and the config's sha256 as fa2bench's results
    record it (None from an fa2bench that does not say)."""
    plan = expand_cases(fa2bench, config, who)
    shapes, seen = [], set()
    for c in plan["cases"]:
        if only_shapes_of and c["role"] != only_shapes_of:
            continue
        if id_filter and not re.search(id_filter, c["id"]):
            continue
        if mode:
            c = with_mode(c, mode)
        key = json.dumps(c["params"], sort_keys=True)
        if key not in seen:
            seen.add(key); shapes.append(c)
    return shapes, plan.get("config_sha256")


def l2_flush_buffer(torch):
    """Twice the L2, zeroed before each sample so no input is served from the cache."""
    props = torch.cuda.get_device_properties(0)
    return torch.empty(int(2 * getattr(props, "L2_cache_size", 50 << 20)), dtype=torch.uint8,
                       device="cuda")


def write_results(torch, path, config, tool, cases, t_start, config_sha256=None):
    """The results file (fa2bench/results/1) of a peer run, written atomically. config_sha256:
    the plan's (fa2bench's canonical hash, so compare sees one config); else the file's bytes'."""
    props = torch.cuda.get_device_properties(0)
    if not config_sha256:
        with open(config, "rb") as f:
            config_sha256 = hashlib.sha256(f.read()).hexdigest()
    free, total_mem = torch.cuda.mem_get_info()
    out = {"schema": "fa2bench/results/1",
           "tool": dict({"version": "0.1.0", "git": "", "build": "", "torch": torch.__version__},
                        **tool),
           "host": {"hostname": socket.gethostname(), "os": platform.platform()},
           "device": {"kind": "cuda", "index": 0, "name": props.name,
                      "cc": f"{props.major}.{props.minor}", "sms": props.multi_processor_count,
                      "memory_bytes": total_mem, "l2_bytes": getattr(props, "L2_cache_size", 0),
                      "cuda_runtime": torch.version.cuda,
                      "cudnn": str(torch.backends.cudnn.version())},
           "target": "cuda",
           "config": {"path": config, "sha256": config_sha256, "echo": {}},
           "checks": [], "cases": cases, "interrupted": False, "wall_s": time.time() - t_start}
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(out, f, indent=1)
    os.replace(tmp, path)
    print(f"wrote {path} ({len(cases)} cases)", file=sys.stderr)


def report(case, r):
    """The progress line under a case: its time and rate, or why it did not run."""
    if r["status"] == "ok":
        print(f"        {r['time_ms']['median']:.4g} ms, {case['tflops']:.1f} TFLOP/s",
              file=sys.stderr)
    else:
        print(f"        {r['status']}: {r['reason']}", file=sys.stderr)
