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
import argparse, os, sys, time

from peer_harness import (MODES, case_record, die as harness_die, head_dim_v, l2_flush_buffer,
                          mode_step, plan_shapes, report, time_samples, verify, verify_grads,
                          verify_sequences, write_results)

SDPA_NAMES = {"flash": "FLASH_ATTENTION", "cudnn": "CUDNN_ATTENTION",
              "efficient": "EFFICIENT_ATTENTION", "math": "MATH"}


def die(msg, code=2):
    harness_die("torch_sdpa_baseline", msg, code)


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
    Dv = head_dim_v(p)  # V, O and dO: D_v wide where the case gives them their own
    gen = torch.Generator(device="cuda").manual_seed(int(m.get("seed", 42)))
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    q = torch.randn(B, H, Tq, D, device="cuda", dtype=dt, generator=gen)
    k = torch.randn(B, Hkv, Tk, D, device="cuda", dtype=dt, generator=gen)
    v = torch.randn(B, Hkv, Tk, Dv, device="cuda", dtype=dt, generator=gen)
    d_o = torch.randn(B, H, Tq, Dv, device="cuda", dtype=dt, generator=gen) if training else None
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

    step, saved = mode_step(mode, fwd, grads)  # saved: the forward a bwd case reuses

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

    shapes, config_sha256 = plan_shapes(args.fa2bench, args.config, "torch_sdpa_baseline",
                                        args.only_shapes_of, args.filter, args.mode)
    flush = l2_flush_buffer(torch)
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
            case = case_record(c, f"torch-{b}", r, f"torch SDPA {b}, {lse_note(b, args.with_lse)}")
            report(case, r)
            cases.append(case)
    write_results(torch, args.out, args.config,
                  {"name": "torch_sdpa_baseline.py", "torch_lse": args.with_lse}, cases, t_start,
                  config_sha256)


if __name__ == "__main__":
    main()
