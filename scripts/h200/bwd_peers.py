"""PyTorch SDPA (flash, cuDNN) forward+backward timings at the shapes of tests/gpu/bench_fa2_bwd.cpp,
bf16, one line per (shape, backend), to set beside that harness's lines in the same device call."""
import torch
from torch.nn.attention import SDPBackend, sdpa_kernel
import torch.nn.functional as F

SHAPES = [(8, 32, 2048, 64, True), (8, 16, 2048, 128, True), (2, 32, 8192, 64, True),
          (2, 16, 8192, 128, True), (2, 16, 8192, 128, False), (2, 8, 8192, 256, True),
          (1, 16, 16384, 128, True)]


def median_ms(fn):
    for _ in range(3):
        fn()
    times = []
    for _ in range(20):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        torch.cuda.synchronize()
        times.append(a.elapsed_time(b))
    return sorted(times)[len(times) // 2]


for B, H, T, D, causal in SHAPES:
    q, k, v = (torch.randn(B, H, T, D, device="cuda", dtype=torch.bfloat16, requires_grad=True)
               for _ in range(3))
    d_o = torch.randn(B, H, T, D, device="cuda", dtype=torch.bfloat16)
    flops = 4 * B * H * T * T * D / (2 if causal else 1)
    for name, backend in (("torch-flash", SDPBackend.FLASH_ATTENTION),
                          ("torch-cudnn", SDPBackend.CUDNN_ATTENTION)):
        with sdpa_kernel(backend):
            def step():
                out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                torch.autograd.grad(out, (q, k, v), d_o)
            ms = median_ms(step)
        print(f"PEER {name} B={B} H={H} T={T} D={D} causal={int(causal)} fwd_bwd_ms={ms:.3f} "
              f"fwd_bwd_tflops={3.5 * flops / ms / 1e9:.1f}", flush=True)
