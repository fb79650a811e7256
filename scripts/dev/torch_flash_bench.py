# SPDX-License-Identifier: Apache-2.0
"""Times torch SDPA's flash backend (FA2) on the shapes of tests/gpu/bench_fa2_kernel.cpp.

Median of 20 CUDA-event-timed calls after 3 warm-ups; TFLOP/s = 4*B*H*T^2*D (halved if causal).
"""
import torch
from torch.nn.attention import SDPBackend, sdpa_kernel
import torch.nn.functional as F

shapes = []
for D in (64, 128, 256):
    for T in (2048, 8192):
        for causal in (False, True):
            shapes.append((16384 // T, 2048 // D, T, D, causal))
shapes += [(4, 32, 8192, 128, False), (4, 32, 8192, 128, True)]

for B, H, T, D, causal in shapes:
    q, k, v = (torch.randn(B, H, T, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
        for _ in range(3):
            F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        ts = []
        for _ in range(20):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            b.record()
            b.synchronize()
            ts.append(a.elapsed_time(b))
    ts.sort()
    med = ts[len(ts) // 2]
    flops = 4 * B * H * T * T * D / (2 if causal else 1)
    print(f"TORCHFLASH B={B} H={H} T={T} D={D} causal={int(causal)} ms={med:.4f} "
          f"tflops={flops / (med * 1e-3) / 1e12:.1f}", flush=True)
    del q, k, v
