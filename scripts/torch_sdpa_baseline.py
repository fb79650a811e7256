#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""PyTorch SDPA backends over the cases of an fa2bench config, written as an fa2bench results
file, so `fa2bench compare` and the reports put PyTorch beside our kernels.

  scripts/torch_sdpa_baseline.py --config configs/perf_fwd.json --out out/torch_sdpa.json \
      --backends flash,cudnn,efficient,math [--fa2bench build/fa2bench] [--with-lse] \
      [--mode fwd|bwd|fwd_bwd]

The config is expanded by `fa2bench plan --cases-json` (same grid, same measurement settings);
each distinct shape runs once per PyTorch backend as backend "torch-<name>". Timing follows
fa2bench's rules: warm-up, then CUDA-event samples each preceded by an L2 flush (and a short
GPU spin that keeps PyTorch's host-side dispatch out of the timed region), until
min_samples and the (p90-p10)/median spread target, or max_samples / max_time_s. Memory:
torch's allocator peak during the case, inputs and outputs included (as fa2bench reports
peak_bytes). Accuracy: float64 reference on up to verify_rows sampled rows. GB/s: fa2bench's
minimal traffic (Q, K, V, O, LSE once; K and V of the KV heads) over the median time.

Variable-length batches (params.lengths, configs/varlen.json): packed runs the sequences as
a jagged nested tensor (torch.nested, layout=torch.jagged: SDPA's varlen path, no padding;
empty sequences are left out, they have no tokens), padded runs the B x max(lengths) batch with
an explicit boolean key-padding mask (plus the causal bound), which the math, efficient and
cudnn backends take and flash refuses (recorded unsupported with torch's reason). FLOPs are the
useful ones (each sequence at its own length), the `varlen` block as fa2bench writes it; the
check compares a few rows of the first and last non-empty sequences with float64.

Shapes: GQA (H_kv < H) runs with enable_gqa. Causal masks align bottom-right as fa2bench's: a
decode step of one query row (T_q = 1) sees every key and runs unmasked; other T_q != T_k use
torch's causal_lower_right bias (or a boolean mask on a torch without it).

Which work is timed: by default SDPA runs under inference_mode, where the cudnn and efficient
backends skip the logsumexp (torch computes it only when an input requires grad and grad mode
is on: should_compute_logsumexp). --with-lse runs every case as a training forward does
(inputs with requires_grad=True, grad mode on, no backward; each output and its graph are
dropped right after the sample), so they also write the logsumexp, as fa2bench's fa2 and cudnn
backends do. The flash backend writes it either way. The file records the mode in
tool.torch_lse and per case in backend_info ("torch SDPA cudnn, logsumexp computed").

Training modes (a case's params.mode, or --mode for every case): inputs require grad and a
seeded random dO is drawn. fwd_bwd times the forward and torch.autograd.grad(out, (q, k, v),
dO) together; bwd runs the forward once, untimed, and times the backward alone (the graph is
kept between samples). FLOPs are 2.5x (bwd) and 3.5x (fwd_bwd) the forward's, as fa2bench
counts them. dQ, dK, dV are checked against a float64 autograd reference on the first and last
(batch, KV head), every query row of their group (dK and dV need all of them), and reported as
max_abs_err_dq/dk/dv (and mean, rel) beside the forward's errors.
"""
import argparse, hashlib, json, math, os, platform, re, socket, sys, time

from fa2bench_cases import expand_cases

SPIN_CYCLES = 400_000  # ~0.2 ms at 2 GHz, longer than PyTorch's dispatch of one SDPA call

SDPA_NAMES = {"flash": "FLASH_ATTENTION", "cudnn": "CUDNN_ATTENTION",
              "efficient": "EFFICIENT_ATTENTION", "math": "MATH"}

MODES = ("fwd", "bwd", "fwd_bwd")
# FLOPs of each mode as a multiple of the forward's (flash-attention's convention, as fa2bench).
MODE_FLOPS = {"fwd": 1.0, "bwd": 2.5, "fwd_bwd": 3.5}
REF_CHUNK_ROWS = 1024  # query rows per float64 reference chunk (bounds its T_q x T_k buffers)


def die(msg, code=2):
    print(f"torch_sdpa_baseline: {msg}", file=sys.stderr)
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


def lse_note(backend, with_lse):
    """What `backend_info` says about the logsumexp for one torch backend."""
    if backend == "flash":
        return "logsumexp computed (the flash kernel always writes it)"
    if backend == "math":
        return ("no logsumexp (math; grad mode: autograd keeps the softmax)" if with_lse
                else "no logsumexp (math)")
    return "logsumexp computed" if with_lse else "logsumexp not computed"


def lower_right_causal(torch, Tq, Tk):
    """The bottom-right causal mask for SDPA's attn_mask: torch's causal_lower_right bias where
    torch has it (SDPA then runs the flash or efficient kernel with their own bottom-right
    masking), else an explicit boolean mask (which rules the flash backend out)."""
    try:
        from torch.nn.attention.bias import causal_lower_right
        return causal_lower_right(Tq, Tk)
    except ImportError:
        i = torch.arange(Tq, device="cuda")[:, None]; j = torch.arange(Tk, device="cuda")[None, :]
        return j <= i + (Tk - Tq)


def min_traffic_bytes(p):
    """fa2bench's minimal traffic of a case (src/core/shape_algebra.cpp min_traffic_bytes): Q, K,
    V, O and the LSE once (K and V with the KV heads, so GQA and decode count the cache once); the
    backward adds dO and the three gradients and re-reads the forward's tensors. A packed
    variable-length batch holds its real tokens only, a padded one B * max(lengths)."""
    e = {"fp16": 2, "bf16": 2, "fp32": 4}[p["dtype"]]
    packed = "lengths" in p and p.get("packing") == "packed"
    q_rows = sum(p["lengths"]) if packed else p["B"] * p["T_q"]
    k_rows = sum(p["lengths"]) if packed else p["B"] * p["T_k"]
    q_elems = q_rows * p["H"] * p["D"]
    kv_elems = k_rows * p["H_kv"] * p["D"]
    io = 2 * q_elems * e + 2 * kv_elems * e + q_rows * p["H"] * 4
    grad_io = 2 * q_elems * e + 2 * kv_elems * e
    mode = p.get("mode", "fwd")
    return io if mode == "fwd" else io + grad_io if mode == "bwd" else 2 * io + grad_io


def varlen_useful_flops(p):
    """fa2bench's useful FLOPs of a variable-length batch: each sequence at its own length."""
    f = sum(4.0 * p["H"] * p["D"] * n * n for n in p["lengths"])
    return f / (2 if p["causal"] else 1)


def varlen_block(p):
    """The results' `varlen` block (src/io/results_json.cpp varlen_block)."""
    tokens = sum(p["lengths"])
    useful = varlen_useful_flops(p)
    dense = 4.0 * p["B"] * p["H"] * p["T_q"] * p["T_k"] * p["D"] / (2 if p["causal"] else 1)
    return {"total_tokens": tokens,
            "padding_ratio": p["B"] * p["T_q"] / tokens if tokens else 1.0,
            "useful_flops": useful,
            "executed_flops": dense if p["packing"] == "padded" else useful}


def time_samples(torch, step, m, flush):
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
        torch.cuda._sleep(SPIN_CYCLES)
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


def run_varlen_case(torch, F, sdpa_kernel, SDPBackend, backend, p, m, flush):
    """A variable-length batch (params.lengths): packed as a jagged nested tensor, padded with
    an explicit key-padding mask. Forward only."""
    if p.get("mode", "fwd") != "fwd":
        return {"status": "unsupported",
                "reason": "variable-length batches run forward only (as fa2bench's)"}
    dt = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}[p["dtype"]]
    H, Hkv, D, causal = p["H"], p["H_kv"], p["D"], p["causal"]
    lengths = [n for n in p["lengths"] if n > 0]  # an empty sequence has no tokens to attend
    gen = torch.Generator(device="cuda").manual_seed(int(m.get("seed", 42)))
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    seqs = [tuple(torch.randn(heads, n, D, device="cuda", dtype=dt, generator=gen)
                  for heads in (H, Hkv, Hkv)) for n in lengths]
    kw = {"enable_gqa": True} if Hkv != H else {}
    backend_enum = getattr(SDPBackend, SDPA_NAMES[backend])
    if p["packing"] == "packed":
        # [B, j, heads, D] jagged, transposed to SDPA's [B, heads, j, D].
        nested = [torch.nested.nested_tensor([s[t].transpose(0, 1) for s in seqs],
                                             layout=torch.jagged).transpose(1, 2)
                  for t in range(3)]
        call = lambda: F.scaled_dot_product_attention(*nested, is_causal=causal, **kw)
        split = lambda out: [o.transpose(0, 1) for o in out.transpose(1, 2).unbind()]
    else:
        B, T = p["B"], p["T_q"]
        dense = [torch.zeros(B, heads, T, D, device="cuda", dtype=dt) for heads in (H, Hkv, Hkv)]
        real = [b for b, n in enumerate(p["lengths"]) if n > 0]
        for b, s in zip(real, seqs):
            for t in range(3):
                dense[t][b, :, :s[t].shape[1]] = s[t]
        j = torch.arange(T, device="cuda")
        keep = j[None, :] < torch.tensor(p["lengths"], device="cuda")[:, None]  # [B, T] keys
        mask = keep[:, None, None, :].expand(B, 1, T, T)
        if causal:
            mask = mask & (j[None, :] <= j[:, None])[None, None]
        call = lambda: F.scaled_dot_product_attention(*dense, attn_mask=mask, **kw)
        split = lambda out: [out[b, :, :n] for b, n in zip(real, lengths)]
    io = torch.cuda.memory_allocated() - base

    def step():
        with sdpa_kernel([backend_enum]):
            return call()

    result = {"status": "ok", "reason": ""}
    try:
        # no_grad, not inference_mode: the jagged nested tensor's transposes need version
        # counters, which inference tensors do not have.
        with torch.no_grad():
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record(); out = step(); stop.record(); torch.cuda.synchronize()
            first = start.elapsed_time(stop)
            peak = torch.cuda.max_memory_allocated() - base
            acc = verify_sequences(torch, seqs, split(out), causal, int(m.get("verify_rows", 256)))
            del out
            s = time_samples(torch, step, m, flush)
        s["first"] = first
        result.update(time_ms=s, peak=peak, io=io, accuracy=acc)
    except torch.cuda.OutOfMemoryError as e:
        result.update(status="oom", reason=str(e).split("\n")[0])
    except (RuntimeError, TypeError, NotImplementedError, ValueError) as e:
        result.update(status="unsupported", reason=str(e).split("\n")[0][:300])
    del seqs
    torch.cuda.empty_cache()
    return result


def run_case(torch, F, sdpa_kernel, SDPBackend, backend, p, m, flush, with_lse=False):
    mode = p.get("mode", "fwd")
    training = mode != "fwd"
    dt = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}[p["dtype"]]
    B, H, Hkv, Tq, Tk, D = p["B"], p["H"], p["H_kv"], p["T_q"], p["T_k"], p["D"]
    gen = torch.Generator(device="cuda").manual_seed(int(m.get("seed", 42)))
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    q = torch.randn(B, H, Tq, D, device="cuda", dtype=dt, generator=gen)
    k = torch.randn(B, Hkv, Tk, D, device="cuda", dtype=dt, generator=gen)
    v = torch.randn(B, Hkv, Tk, D, device="cuda", dtype=dt, generator=gen)
    d_o = torch.randn(B, H, Tq, D, device="cuda", dtype=dt, generator=gen) if training else None
    if with_lse or training:
        # As a training forward: torch's SDPA computes the logsumexp (for the backward) only
        # when an input requires grad and grad mode is on.
        for t in (q, k, v):
            t.requires_grad_(True)
    io = torch.cuda.memory_allocated() - base
    kw = {"enable_gqa": True} if Hkv != H else {}
    causal = p["causal"]
    if causal and Tq == 1 and Tk >= 1:
        # Decode: the one query row sees every key under the bottom-right mask, so this is
        # attention without a mask, which every SDPA backend (flash included) runs.
        call = lambda: F.scaled_dot_product_attention(q, k, v, **kw)
    elif causal and Tq != Tk:
        # fa2bench aligns causal masks bottom-right; SDPA's is_causal aligns top-left.
        mask = lower_right_causal(torch, Tq, Tk)
        call = lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=mask, **kw)
    else:
        call = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal, **kw)
    backend_enum = getattr(SDPBackend, SDPA_NAMES[backend])

    def fwd():
        with sdpa_kernel([backend_enum]):
            return call()

    def grads(out, keep):
        with sdpa_kernel([backend_enum]):
            return torch.autograd.grad(out, (q, k, v), d_o, retain_graph=keep)

    saved = {}  # bwd: the forward whose graph every timed backward reuses

    def step():
        """The timed region of the case's mode; returns what the first run verifies."""
        if mode == "fwd":
            return fwd(), None
        if mode == "fwd_bwd":
            out = fwd()
            return out, grads(out, False)
        if "out" not in saved:
            saved["out"] = fwd()
        return saved["out"], grads(saved["out"], True)

    result = {"status": "ok", "reason": ""}
    # Grad mode with --with-lse (each output keeps its autograd graph until it is dropped, right
    # after its sample; no backward), else inference mode (no graph, no logsumexp).
    grad_mode = torch.enable_grad if (with_lse or training) else torch.inference_mode
    try:
        with grad_mode():
            if mode == "bwd":  # the forward the backward reads, outside every timed region
                saved["out"] = fwd(); torch.cuda.synchronize()
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record(); out, g = step(); stop.record(); torch.cuda.synchronize()
            first = start.elapsed_time(stop)
            peak = torch.cuda.max_memory_allocated() - base
            with torch.no_grad():
                acc = verify(torch, q, k, v, out.detach(), causal, int(m.get("verify_rows", 256)))
            if training:
                acc.update(verify_grads(torch, q.detach(), k.detach(), v.detach(), d_o, g,
                                        causal))
            del out, g
            s = time_samples(torch, step, m, flush)
        s["first"] = first
        result.update(time_ms=s, peak=peak, io=io, accuracy=acc)
    except torch.cuda.OutOfMemoryError as e:
        result.update(status="oom", reason=str(e).split("\n")[0])
    except (RuntimeError, TypeError, NotImplementedError) as e:
        # TypeError: an older torch whose causal_lower_right bias does not take enable_gqa.
        result.update(status="unsupported", reason=str(e).split("\n")[0][:300])
    saved.clear()
    del q, k, v, d_o
    torch.cuda.empty_cache()
    return result


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
            "nonfinite": int((~torch.isfinite(out)).sum().item()), "rows_checked": n // D}


def case_record(c, backend, r, with_lse):
    """One fa2bench results case for torch backend `backend` on plan case `c`, from run_case's
    result `r`."""
    p, m = c["params"], c["measure"]
    name = f"torch-{backend}"
    if "lengths" in p:  # useful FLOPs, as fa2bench counts a variable-length batch's
        flops = varlen_useful_flops(p)
    else:
        flops = 4.0 * p["B"] * p["H"] * p["T_q"] * p["T_k"] * p["D"] / (2 if p["causal"] else 1)
    flops *= MODE_FLOPS[p.get("mode", "fwd")]
    case = {"id": f"{name}/{c['shape_key']}", "sweep": c["sweep"], "backend": name, "role": name,
            "params": p, "measure": m, "target": "cuda", "status": r["status"],
            "reason": r["reason"], "flops": flops,
            "time_ms": r.get("time_ms", {"n": 0}), "tflops": None, "gbps": None,
            "backend_info": f"torch SDPA {backend}, {lse_note(backend, with_lse)}",
            "memory": {"peak_bytes": r.get("peak", 0),
                       "workspace_bytes": max(0, r.get("peak", 0) - r.get("io", 0) * 2),
                       "predicted_bytes": 0, "requested_bytes": 0},
            "accuracy": r.get("accuracy", {"checked": False, "nonfinite": 0, "rows_checked": 0})}
    if "lengths" in p:
        case["varlen"] = varlen_block(p)
    if r["status"] == "ok":
        case["tflops"] = flops / (r["time_ms"]["median"] * 1e-3) / 1e12
        case["gbps"] = min_traffic_bytes(p) / (r["time_ms"]["median"] * 1e-3) / 1e9
    return case


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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", required=True, help="fa2bench config whose grid to run")
    ap.add_argument("--out", required=True, help="results file to write (fa2bench schema)")
    ap.add_argument("--backends", default="flash,cudnn", help="comma list of flash,cudnn,efficient,math")
    ap.add_argument("--fa2bench", default="build/fa2bench", help="fa2bench binary (expands the config)")
    ap.add_argument("--only-shapes-of", default=None,
                    help="run only shapes whose configured backend is this (e.g. fa2)")
    ap.add_argument("--filter", default=None,
                    help="run only cases whose fa2bench id matches this regex (as sweep --filter)")
    ap.add_argument("--mode", choices=MODES, default=None,
                    help="run every case in this mode (default: each case's own params.mode); "
                         "bwd times the backward alone, fwd_bwd forward and backward together")
    ap.add_argument("--with-lse", action="store_true",
                    help="time a training forward: inputs require grad, grad mode on (no "
                         "backward), so cudnn and efficient also compute the logsumexp")
    args = ap.parse_args()
    backends = [b for b in args.backends.split(",") if b]
    for b in backends:
        if b not in SDPA_NAMES:
            die(f"unknown backend {b!r}; choose from {', '.join(SDPA_NAMES)}")
    if not os.path.exists(args.fa2bench):
        die(f"{args.fa2bench} not found (build fa2bench first, or pass --fa2bench)")
    try:
        import torch
        import torch.nn.functional as F
        from torch.nn.attention import sdpa_kernel, SDPBackend
    except ImportError as e:
        die(f"PyTorch is not installed ({e}); pip install torch", 3)
    if not torch.cuda.is_available():
        die("no CUDA GPU visible to PyTorch", 3)

    plan = expand_cases(args.fa2bench, args.config, "torch_sdpa_baseline")
    shapes, seen = [], set()
    for c in plan["cases"]:
        if args.only_shapes_of and c["role"] != args.only_shapes_of:
            continue
        if args.filter and not re.search(args.filter, c["id"]):
            continue
        if args.mode:
            c = with_mode(c, args.mode)
        key = json.dumps(c["params"], sort_keys=True)
        if key not in seen:
            seen.add(key); shapes.append(c)
    props = torch.cuda.get_device_properties(0)
    flush = torch.empty(int(2 * getattr(props, "L2_cache_size", 50 << 20)), dtype=torch.uint8, device="cuda")
    cases, t_start = [], time.time()
    total = len(shapes) * len(backends)
    for c in shapes:
        p, m = c["params"], c["measure"]
        for b in backends:
            print(f"[{len(cases) + 1}/{total}] torch-{b} {c['shape_key']}", file=sys.stderr, flush=True)
            if list(p.get("window", [-1, -1])) != [-1, -1]:
                # SDPA has no window argument; a boolean mask would time another kernel (and
                # no flash one), so a windowed case is recorded as such rather than run wrong.
                r = {"status": "unsupported",
                     "reason": "sliding window: torch SDPA takes none (this script runs no masks)"}
            elif p.get("kv_layout", "contiguous") != "contiguous":
                # SDPA reads contiguous K and V; timing them would label a contiguous run paged.
                r = {"status": "unsupported",
                     "reason": "paged KV cache: torch SDPA takes no page table (this script runs "
                               "contiguous K and V only)"}
            else:
                try:
                    if "lengths" in p:
                        r = run_varlen_case(torch, F, sdpa_kernel, SDPBackend, b, p, m, flush)
                    else:
                        r = run_case(torch, F, sdpa_kernel, SDPBackend, b, p, m, flush,
                                     args.with_lse)
                except torch.OutOfMemoryError as e:
                    # A shape that does not fit this GPU is a result (oom), as it is for
                    # fa2bench's own backends, not the end of the run.
                    r = {"status": "oom",
                         "reason": "out of memory: " + str(e).split(". ")[0]}
                finally:
                    torch.cuda.empty_cache()
            case = case_record(c, b, r, args.with_lse)
            if r["status"] == "ok":
                med = r["time_ms"]["median"]
                print(f"        {med:.4g} ms, {case['tflops']:.1f} TFLOP/s", file=sys.stderr)
            else:
                print(f"        {r['status']}: {r['reason']}", file=sys.stderr)
            cases.append(case)
    with open(args.config, "rb") as f:
        cfg_bytes = f.read()
    free, total_mem = torch.cuda.mem_get_info()
    out = {"schema": "fa2bench/results/1",
           "tool": {"name": "torch_sdpa_baseline.py", "version": "0.1.0", "git": "", "build": "",
                    "torch": torch.__version__, "torch_lse": args.with_lse},
           "host": {"hostname": socket.gethostname(), "os": platform.platform()},
           "device": {"kind": "cuda", "index": 0, "name": props.name,
                      "cc": f"{props.major}.{props.minor}", "sms": props.multi_processor_count,
                      "memory_bytes": total_mem, "l2_bytes": getattr(props, "L2_cache_size", 0),
                      "cuda_runtime": torch.version.cuda,
                      "cudnn": str(torch.backends.cudnn.version())},
           "target": "cuda",
           "config": {"path": args.config, "sha256": hashlib.sha256(cfg_bytes).hexdigest(),
                      "echo": {}},
           "checks": [], "cases": cases, "interrupted": False, "wall_s": time.time() - t_start}
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    tmp = args.out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(out, f, indent=1)
    os.replace(tmp, args.out)
    print(f"wrote {args.out} ({len(cases)} cases)", file=sys.stderr)


if __name__ == "__main__":
    main()
