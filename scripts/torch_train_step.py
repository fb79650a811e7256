#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The seed article's transformer training step in PyTorch, over the transformer cases of an
fa2bench config, written as an fa2bench model-results file (kind fa2bench-model-results), so the
same model with PyTorch's SDPA backends stands beside ours.

  scripts/torch_train_step.py --config configs/seed_training_step.json \
      --out out/torch_train_step.json \
      [--backends math,flash,cudnn] [--fa2bench build/fa2bench]

The config is expanded by `fa2bench plan --cases-json` (its "scope": "transformer" cases); each
distinct model shape runs once per PyTorch backend as backend "torch-<name>" (math is PyTorch's
"standard attention"). The model is the one src/model/ builds: token embedding -> pre-LN blocks
(LayerNorm -> fused QKV linear -> causal SDPA -> output linear + residual -> LayerNorm -> MLP
with GELU (tanh) -> + residual) -> final LayerNorm -> LM head without bias; weights in the
case's dtype (model.to(dtype), as the article), loss = mean of the logits, AdamW (lr 1e-4,
PyTorch defaults otherwise: its state is in the parameters' dtype), activation checkpointing
per block when the case says recompute on.

Measurement, as fa2bench's model runner: measure.warmup steps (at least one; the article
measures after a warm-up step), then the peak statistics are reset and measure.min_samples
steps are timed (forward, backward, optimizer each between CUDA events); memory is PyTorch's
allocator peak over the timed steps (max_memory_allocated), which counts what its tensors hold,
as fa2bench's tracker does. Out of memory is recorded as status "oom" with the bytes PyTorch
asked for, and the run goes on.
"""
import argparse, hashlib, json, os, platform, re, socket, sys, time

from fa2bench_cases import expand_cases

TORCH_BACKENDS = {"math": "MATH", "flash": "FLASH_ATTENTION", "cudnn": "CUDNN_ATTENTION",
                  "efficient": "EFFICIENT_ATTENTION"}
DTYPES = {"bf16": "bfloat16", "fp16": "float16", "fp32": "float32"}


def die(msg, code=2):
    print(f"torch_train_step: {msg}", file=sys.stderr)
    sys.exit(code)


def model_cases(fa2bench, config):
    cases = expand_cases(fa2bench, config, "torch_train_step")["cases"]
    model = [c for c in cases if c.get("scope") == "transformer"]
    if not model:
        die(f"{config} has no \"scope\": \"transformer\" sweep")
    return model


def build_model(torch, p, sdpa_backend):
    nn, F = torch.nn, torch.nn.functional
    from torch.nn.attention import sdpa_kernel
    from torch.utils.checkpoint import checkpoint

    h, heads, hkv, d = p["hidden"], p["heads"], p["H_kv"], p["D"]
    mlp = p["mlp_ratio"] * h

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1 = nn.LayerNorm(h, eps=1e-5)
            self.qkv = nn.Linear(h, h + 2 * hkv * d)
            self.proj = nn.Linear(h, h)
            self.ln2 = nn.LayerNorm(h, eps=1e-5)
            self.up = nn.Linear(h, mlp)
            self.down = nn.Linear(mlp, h)

        def attention(self, x):
            b, t, _ = x.shape
            q, k, v = self.qkv(self.ln1(x)).split([h, hkv * d, hkv * d], dim=-1)
            q = q.view(b, t, heads, d).transpose(1, 2)
            k = k.view(b, t, hkv, d).transpose(1, 2)
            v = v.view(b, t, hkv, d).transpose(1, 2)
            with sdpa_kernel([sdpa_backend]):
                y = F.scaled_dot_product_attention(q, k, v, is_causal=True,
                                                   enable_gqa=hkv != heads)
            return self.proj(y.transpose(1, 2).reshape(b, t, h))

        def body(self, x):
            x = x + self.attention(x)
            return x + self.down(F.gelu(self.up(self.ln2(x)), approximate="tanh"))

        def forward(self, x):
            if p["recompute"] == "on":
                return checkpoint(self.body, x, use_reentrant=False)
            return self.body(x)

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(p["vocab"], h)
            self.blocks = nn.ModuleList(Block() for _ in range(p["layers"]))
            self.ln_f = nn.LayerNorm(h, eps=1e-5)
            self.head = nn.Linear(h, p["vocab"], bias=False)

        def forward(self, tokens):
            x = self.embed(tokens)
            for blk in self.blocks:
                x = blk(x)
            return self.head(self.ln_f(x))

    return Model()


def requested_bytes(message):
    m = re.search(r"Tried to allocate ([0-9.]+) (B|KiB|MiB|GiB|TiB)", message)
    if not m:
        return 0
    scale = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}[m.group(2)]
    return int(float(m.group(1)) * scale)


class Clock:
    """CUDA events on the GPU; on the CPU (--device cpu, a smoke test of this script) the host
    clock, and no memory statistics."""

    def __init__(self, torch, device):
        self.torch, self.cuda = torch, device == "cuda"

    def mark(self):
        if self.cuda:
            ev = self.torch.cuda.Event(enable_timing=True)
            ev.record()
            return ev
        return time.perf_counter()

    def ms(self, a, b):
        return a.elapsed_time(b) if self.cuda else 1e3 * (b - a)

    def sync(self):
        if self.cuda:
            self.torch.cuda.synchronize()

    def reset_peak(self):
        if self.cuda:
            self.torch.cuda.empty_cache()
            self.torch.cuda.reset_peak_memory_stats()

    def peak(self):
        return self.torch.cuda.max_memory_allocated() if self.cuda else 0


def run_case(torch, backend, p, measure, device):
    from torch.nn.attention import SDPBackend
    r = {"status": "ok", "reason": "", "requested_bytes": 0}
    clock = Clock(torch, device)
    clock.reset_peak()
    torch.manual_seed(measure.get("seed", 0))
    dtype = getattr(torch, DTYPES[p["dtype"]])
    model = opt = tokens = None
    try:
        model = build_model(torch, p, getattr(SDPBackend, TORCH_BACKENDS[backend])).to(
            device=device, dtype=dtype)
        r["parameters"] = sum(t.numel() for t in model.parameters())
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4) if p["optimizer"] == "adamw" else None
        tokens = torch.randint(0, p["vocab"], (p["B"], p["T"]), device=device)

        def step():
            ev = [clock.mark()]
            loss = model(tokens).float().mean()
            ev.append(clock.mark())
            loss.backward()
            ev.append(clock.mark())
            if opt is not None:
                opt.step()
                opt.zero_grad(set_to_none=True)
            else:
                model.zero_grad(set_to_none=True)
            ev.append(clock.mark())
            clock.sync()
            return loss.item(), [clock.ms(ev[i], ev[i + 1]) for i in range(3)]

        for _ in range(max(1, measure.get("warmup", 1))):
            step()
        clock.sync()
        clock.reset_peak()
        times, losses, spent = [], [], 0.0
        wanted = max(1, measure.get("min_samples", 1))
        while len(times) < wanted and (not times or spent < 1e3 * measure.get("max_time_s", 1e9)):
            loss, t = step()
            losses.append(loss)
            times.append(t)
            spent += sum(t)
        r["peak_bytes"] = clock.peak()
        med = lambda xs: sorted(xs)[len(xs) // 2]
        r["forward_ms"] = med([t[0] for t in times])
        r["backward_ms"] = med([t[1] for t in times])
        r["optimizer_ms"] = med([t[2] for t in times])
        r["step_ms"] = med([sum(t) for t in times])
        r["steps"] = len(times)
        r["loss_first"], r["loss_last"] = losses[0], losses[-1]
    except torch.OutOfMemoryError as e:
        r["status"], r["reason"] = "oom", str(e).split("\n")[0][:300]
        r["requested_bytes"] = requested_bytes(str(e))
    except RuntimeError as e:
        text = str(e)
        r["status"] = "unsupported" if "No available kernel" in text else "error"
        r["reason"] = text.split("\n")[0][:300]
    finally:
        del model, opt, tokens
        clock.sync()
        clock.reset_peak()
    return r


def flops(p, parameters):
    """fa2bench's model convention: dense 6 * params * tokens, plus per layer 3.5x the causal
    attention forward (4 * B * heads * T^2 * D / 2)."""
    tokens = p["B"] * p["T"]
    attention = 3.5 * 4 * p["B"] * p["heads"] * p["T"] ** 2 * p["D"] / 2 * p["layers"]
    return 6.0 * parameters * tokens + attention


def case_record(c, backend, r):
    p = c["params"]
    name = f"torch-{backend}"
    rec = {"id": name + c["id"][c["id"].index("/"):], "sweep": c["sweep"], "backend": name,
           "role": name, "params": p, "status": r["status"], "reason": r["reason"],
           "backend_info": f"PyTorch SDPA {backend} inside the article's model",
           "memory": {"peak_bytes": r.get("peak_bytes", 0), "requested_bytes": r["requested_bytes"]},
           "timing": {k: r.get(k, 0) for k in ("steps", "forward_ms", "backward_ms",
                                               "optimizer_ms", "step_ms")},
           "metrics": {}}
    if r["status"] == "ok":
        step_s = r["step_ms"] / 1e3
        rec["metrics"] = {"tokens_per_s": p["B"] * p["T"] / step_s,
                          "tflops": flops(p, r["parameters"]) / step_s / 1e12,
                          "loss_first": r["loss_first"], "loss_last": r["loss_last"]}
        rec["plan"] = {"parameters": r["parameters"]}
    return rec


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--backends", default="math,flash,cudnn",
                    help="comma list of " + ",".join(TORCH_BACKENDS))
    ap.add_argument("--fa2bench", default="build/fa2bench")
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"],
                    help="cpu: a smoke test of this script (math backend only, no memory peak)")
    args = ap.parse_args()
    backends = [b for b in args.backends.split(",") if b]
    for b in backends:
        if b not in TORCH_BACKENDS:
            die(f"--backends: unknown backend {b!r} (known: {', '.join(TORCH_BACKENDS)})")
    cases = model_cases(args.fa2bench, args.config)
    import torch
    if args.device == "cuda" and not torch.cuda.is_available():
        die("no CUDA device", 3)
    shapes, seen = [], set()
    for c in cases:
        key = json.dumps(c["params"], sort_keys=True)
        if key not in seen:
            seen.add(key)
            shapes.append(c)
    out_cases, t_start = [], time.time()

    def write(interrupted):
        with open(args.config, "rb") as f:
            cfg_bytes = f.read()
        device = {"kind": "cpu", "name": platform.processor()}
        if args.device == "cuda":
            props = torch.cuda.get_device_properties(0)
            device = {"kind": "cuda", "name": props.name, "cc": f"{props.major}.{props.minor}",
                      "memory_bytes": torch.cuda.mem_get_info()[1]}
        out = {"schema_version": 1, "kind": "fa2bench-model-results",
               "tool": {"name": "torch_train_step.py", "torch": torch.__version__},
               "host": {"hostname": socket.gethostname(), "os": platform.platform()},
               "device": device, "target": args.device, "config": args.config,
               "config_sha256": hashlib.sha256(cfg_bytes).hexdigest(),
               "conventions": {"flops": "dense 6 * params * tokens plus 3.5x the causal attention "
                                        "forward per layer (as fa2bench's model results)",
                               "memory": "torch.cuda.max_memory_allocated over the timed steps"},
               "cases": out_cases, "interrupted": interrupted,
               "wall_s": time.time() - t_start}
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        tmp = args.out + ".tmp"
        with open(tmp, "w") as f:
            json.dump(out, f, indent=1)
        os.replace(tmp, args.out)

    total = len(shapes) * len(backends)
    # Per backend, the smallest model (same parameters but T) that ran out of memory: a longer
    # sequence of that model needs more, so it is recorded as oom without spending minutes on
    # it (PyTorch's math attention at T=8K runs for minutes before failing).
    first_oom = {}
    for c in shapes:
        for b in backends:
            print(f"[{len(out_cases) + 1}/{total}] torch-{b} {c['shape_key']}", file=sys.stderr,
                  flush=True)
            model_key = json.dumps({k: v for k, v in c["params"].items() if k != "T"},
                                   sort_keys=True)
            oom_t = first_oom.get((b, model_key))
            if oom_t is not None and c["params"]["T"] > oom_t:
                r = {"status": "oom", "requested_bytes": 0,
                     "reason": f"not run: the same model ran out of memory at T={oom_t}"}
            else:
                r = run_case(torch, b, c["params"], c["measure"], args.device)
            if r["status"] == "oom" and oom_t is None:
                first_oom[(b, model_key)] = c["params"]["T"]
            rec = case_record(c, b, r)
            if r["status"] == "ok":
                print(f"        {r['peak_bytes'] / 2**30:.1f} GiB, {r['step_ms']:.1f} ms/step",
                      file=sys.stderr)
            else:
                print(f"        {r['status']}: {r['reason']}", file=sys.stderr)
            out_cases.append(rec)
            # Written after every case, so a job cut short keeps what it measured.
            write(len(out_cases) < total)
    print(f"wrote {args.out} ({len(out_cases)} cases)", file=sys.stderr)


if __name__ == "__main__":
    main()
