#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The FlashAttention project's own newest kernels (flash-attn-4: `flash_attn.cute`, on NVIDIA's
CuTe DSL, JIT-compiled; Hopper and Blackwell paths) over the cases of an fa2bench config, written
as an fa2bench results file, so `fa2bench compare --pair fa3=fa4` puts them beside ours.

  scripts/flash_attn_baseline.py --config configs/perf_fwd.json --out out/flash_attn.json \
      [--mode fwd|bwd|fwd_bwd] [--filter REGEX] [--fa2bench build/fa2bench]

Each distinct shape of the config (expanded by `fa2bench plan`) runs once as backend "fa4", timed
exactly as scripts/torch_sdpa_baseline.py times PyTorch (peer_harness.py: warm-up, then
CUDA-event samples each after an L2 flush and a GPU spin, to the config's spread target).

- JIT compilation: the first call of a shape compiles its kernels (seconds). It runs before the
  warm-up, outside every timed region, and is reported per case as `jit_s` (host wall time of
  that first call, synchronised) and in the progress line; compiled kernels are reused by later
  shapes with the same compile key.
- Host-side cost: flash-attn-4's Python interface does more work per call than SDPA's
  dispatcher, so the GPU spin before each sample is sized from the measured host time of a call
  (at least twice it), so the timed region holds the kernels and not the host.
- Layout: q [B, T_q, H, D], k and v [B, T_k, H_kv, D] (the library's own); GQA natively.
  Causal masks align bottom-right, as fa2bench's.
- Modes: fwd (inference: no grad), bwd (the forward once, untimed; the backward timed with the
  graph kept), fwd_bwd (both), as the PyTorch peers; gradients checked against float64.
- Variable-length batches: packed runs `flash_attn_varlen_func` with cu_seqlens (forward);
  padded is recorded unsupported (the library has no key-padding mask: a padded batch would run
  with seqused_k, which skips the padding and is the packed work under another name).
- Windows and paged caches: not run by this script (recorded unsupported, saying so).
- A shape the library refuses is recorded `unsupported` with its message; out of memory `oom`.

The package's version is in every case's backend_info and in tool.flash_attn. On a GPU machine
with no package index, scripts/gpu/fa4_wheels.sh brings the wheels (docs/peers.md).
"""
import argparse, os, sys, time

from peer_harness import (MODES, SPIN_CYCLES, case_record, die as harness_die, head_dim_v,
                          l2_flush_buffer, mode_step, plan_shapes, report, time_samples, verify,
                          verify_grads, verify_sequences, write_results)

BACKEND = "fa4"
SPIN_HZ = 1.5e9  # cycles per second assumed when sizing the spin (low: a longer spin is safe)


def die(msg, code=2):
    harness_die("flash_attn_baseline", msg, code)


def first_line(e):
    text = str(e).strip() or type(e).__name__
    return f"{type(e).__name__}: {text.splitlines()[0]}"[:300]


def output_of(ret):
    """The attention output: this flash-attn-4 returns (out, lse) whether or not return_lse."""
    return ret[0] if isinstance(ret, tuple) else ret


def add_target_site_dirs():
    """A `pip install --target DIR` on PYTHONPATH is not a site directory, so its .pth files
    (nvidia-cutlass-dsl's puts its `cutlass` package on sys.path) are not run: run them."""
    import site
    for d in [p for p in sys.path if p and os.path.isdir(p)]:
        if any(f.endswith(".pth") for f in os.listdir(d)):
            site.addsitedir(d)


def jit_and_spin(torch, step):
    """Runs `step` once (compiling its kernels), then times its host side alone; returns the JIT
    wall time and the spin (cycles) that covers the host side twice over."""
    t0 = time.perf_counter()
    o = step(); torch.cuda.synchronize(); del o
    jit_s = time.perf_counter() - t0
    host = []
    for _ in range(3):
        torch.cuda.synchronize()
        t0 = time.perf_counter(); o = step(); host.append(time.perf_counter() - t0)
        torch.cuda.synchronize(); del o
    spin = max(SPIN_CYCLES, int(2 * min(host) * SPIN_HZ))
    return jit_s, spin, min(host)


def measure(torch, step, verify_first, m, flush, base, io):
    """JIT, one verified run, then the samples; the result dict of peer_harness.case_record."""
    jit_s, spin, host_s = jit_and_spin(torch, step)
    torch.cuda.reset_peak_memory_stats()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record(); out = step(); stop.record(); torch.cuda.synchronize()
    first = start.elapsed_time(stop)
    peak = torch.cuda.max_memory_allocated() - base
    acc = verify_first(out)
    del out
    s = time_samples(torch, step, m, flush, spin)
    s["first"] = first
    print(f"        jit {jit_s:.2f} s, host {host_s * 1e6:.0f} us per call", file=sys.stderr)
    return {"status": "ok", "reason": "", "time_ms": s, "peak": peak, "io": io, "accuracy": acc,
            "extra": {"jit_s": jit_s, "host_call_us": host_s * 1e6}}


def run_case(torch, fa, p, m, flush):
    mode = p.get("mode", "fwd")
    training = mode != "fwd"
    dt = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(p["dtype"])
    if dt is None:
        return {"status": "unsupported", "reason": f"flash-attn-4 takes fp16 and bf16, not {p['dtype']}"}
    B, H, Hkv, Tq, Tk, D = p["B"], p["H"], p["H_kv"], p["T_q"], p["T_k"], p["D"]
    Dv = head_dim_v(p)  # V, O and dO: D_v wide where the case gives them their own
    gen = torch.Generator(device="cuda").manual_seed(int(m.get("seed", 42)))
    torch.cuda.empty_cache()
    base = torch.cuda.memory_allocated()
    q = torch.randn(B, Tq, H, D, device="cuda", dtype=dt, generator=gen)
    k = torch.randn(B, Tk, Hkv, D, device="cuda", dtype=dt, generator=gen)
    v = torch.randn(B, Tk, Hkv, Dv, device="cuda", dtype=dt, generator=gen)
    d_o = torch.randn(B, Tq, H, Dv, device="cuda", dtype=dt, generator=gen) if training else None
    if training:
        for t in (q, k, v):
            t.requires_grad_(True)
    io = torch.cuda.memory_allocated() - base
    causal = p["causal"]
    fwd = lambda: output_of(fa.flash_attn_func(q, k, v, causal=causal))
    grads = lambda out, keep: torch.autograd.grad(out, (q, k, v), d_o, retain_graph=keep)
    step, saved = mode_step(mode, fwd, grads)  # saved: the forward a bwd case reuses

    def verify_first(res):
        out, g = res
        bhsd = lambda t: t.detach().transpose(1, 2)  # [B, T, H, D] -> the checks' [B, H, T, D]
        with torch.no_grad():
            acc = verify(torch, bhsd(q), bhsd(k), bhsd(v), bhsd(out), causal,
                         int(m.get("verify_rows", 256)))
            if training:
                acc.update(verify_grads(torch, bhsd(q), bhsd(k), bhsd(v), bhsd(d_o),
                                        tuple(bhsd(t) for t in g), causal))
        return acc

    grad_mode = torch.enable_grad if training else torch.inference_mode
    try:
        with grad_mode():
            if mode == "bwd":
                saved["out"] = fwd(); torch.cuda.synchronize()
            return measure(torch, step, verify_first, m, flush, base, io)
    finally:
        saved.clear()


def run_varlen_case(torch, fa, p, m, flush):
    """A packed variable-length batch through flash_attn_varlen_func (forward)."""
    if p["packing"] != "packed":
        return {"status": "unsupported",
                "reason": "padded batch: flash-attn-4 takes no key-padding mask (seqused_k "
                          "would skip the padding, which is the packed case)"}
    if p.get("mode", "fwd") != "fwd":
        return {"status": "unsupported",
                "reason": "variable-length batches run forward only (as fa2bench's)"}
    dt = {"fp16": torch.float16, "bf16": torch.bfloat16}[p["dtype"]]
    H, Hkv, D, causal = p["H"], p["H_kv"], p["D"], p["causal"]
    lengths = list(p["lengths"])
    gen = torch.Generator(device="cuda").manual_seed(int(m.get("seed", 42)))
    torch.cuda.empty_cache()
    base = torch.cuda.memory_allocated()
    total = sum(lengths)
    q = torch.randn(total, H, D, device="cuda", dtype=dt, generator=gen)
    k = torch.randn(total, Hkv, D, device="cuda", dtype=dt, generator=gen)
    v = torch.randn(total, Hkv, D, device="cuda", dtype=dt, generator=gen)
    offsets = [0]
    for n in lengths:
        offsets.append(offsets[-1] + n)
    cu = torch.tensor(offsets, device="cuda", dtype=torch.int32)
    io = torch.cuda.memory_allocated() - base
    longest = max(lengths)

    def step():
        return output_of(fa.flash_attn_varlen_func(q, k, v, cu_seqlens_q=cu, cu_seqlens_k=cu,
                                         max_seqlen_q=longest, max_seqlen_k=longest,
                                         causal=causal))

    def verify_first(out):
        # Each non-empty sequence as [heads, L, D], as the checks read it.
        seqs, outs = [], []
        for a, b in zip(offsets[:-1], offsets[1:]):
            if b > a:
                seqs.append(tuple(t[a:b].transpose(0, 1) for t in (q, k, v)))
                outs.append(out[a:b].transpose(0, 1))
        return verify_sequences(torch, seqs, outs, causal, int(m.get("verify_rows", 256)))

    with torch.inference_mode():
        return measure(torch, step, verify_first, m, flush, base, io)


def run_one(torch, fa, p, m, flush):
    if list(p.get("window", [-1, -1])) != [-1, -1]:
        return {"status": "unsupported", "reason": "sliding window: not run by this script"}
    if p.get("kv_layout", "contiguous") != "contiguous":
        return {"status": "unsupported", "reason": "paged KV cache: not run by this script"}
    try:
        if "lengths" in p:
            return run_varlen_case(torch, fa, p, m, flush)
        return run_case(torch, fa, p, m, flush)
    except torch.OutOfMemoryError as e:
        return {"status": "oom", "reason": "out of memory: " + str(e).split(". ")[0]}
    except Exception as e:  # noqa: BLE001 - the library refuses shapes with asserts and DSL errors
        return {"status": "unsupported", "reason": "flash-attn-4: " + first_line(e)}
    finally:
        torch.cuda.empty_cache()


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", required=True, help="fa2bench config whose grid to run")
    ap.add_argument("--out", required=True, help="results file to write (fa2bench schema)")
    ap.add_argument("--fa2bench", default="build/fa2bench", help="fa2bench binary (expands the config)")
    ap.add_argument("--filter", default=None,
                    help="run only cases whose fa2bench id matches this regex (as sweep --filter)")
    ap.add_argument("--mode", choices=MODES, default=None,
                    help="run every case in this mode (default: each case's own params.mode)")
    args = ap.parse_args()
    if not os.path.exists(args.fa2bench):
        die(f"{args.fa2bench} not found (build fa2bench first, or pass --fa2bench)")
    try:
        import torch
    except ImportError as e:
        die(f"PyTorch is not installed ({e})", 3)
    add_target_site_dirs()
    try:
        import flash_attn.cute as fa
        from importlib.metadata import version
        fa_version = version("flash-attn-4")
    except Exception as e:  # noqa: BLE001 - an import of a JIT stack fails in many ways
        die(f"flash-attn-4 is not importable ({first_line(e)}); pip install flash-attn-4 "
            "(on a GPU machine without an index: scripts/gpu/fa4_wheels.sh)", 3)
    if not torch.cuda.is_available():
        die("no CUDA GPU visible to PyTorch", 3)

    shapes, config_sha256 = plan_shapes(args.fa2bench, args.config, "flash_attn_baseline", None,
                                        args.filter, args.mode)
    flush = l2_flush_buffer(torch)
    cases, t_start = [], time.time()
    for i, c in enumerate(shapes):
        print(f"[{i + 1}/{len(shapes)}] {BACKEND} {c['shape_key']}", file=sys.stderr, flush=True)
        r = run_one(torch, fa, c["params"], c["measure"], flush)
        info = f"flash-attn-4 {fa_version} (flash_attn.cute"
        info += ", flash_attn_varlen_func)" if "lengths" in c["params"] else ", flash_attn_func)"
        case = case_record(c, BACKEND, r, info)
        report(case, r)
        cases.append(case)
    write_results(torch, args.out, args.config,
                  {"name": "flash_attn_baseline.py", "flash_attn": fa_version}, cases, t_start,
                  config_sha256)


if __name__ == "__main__":
    main()
