#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs PyTorch SDPA forward + backward on one shape, a few times, so that Nsight Compute can
profile the peer's backward kernel beside ours (scripts/gpu/profile.sh bwd).
  torch_bwd_shape.py B H T D CAUSAL(0|1) [flash|cudnn] [iterations]
"""
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel


def main():
    b, h, t, d, causal = (int(x) for x in sys.argv[1:6])
    backend = sys.argv[6] if len(sys.argv) > 6 else "flash"
    iterations = int(sys.argv[7]) if len(sys.argv) > 7 else 5
    chosen = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}[backend]
    gen = torch.Generator(device="cuda").manual_seed(0)
    q, k, v = (torch.randn(b, h, t, d, device="cuda", dtype=torch.bfloat16, generator=gen,
                           requires_grad=True) for _ in range(3))
    d_o = torch.randn(b, h, t, d, device="cuda", dtype=torch.bfloat16, generator=gen)
    with sdpa_kernel([chosen]):
        for _ in range(iterations):
            out = F.scaled_dot_product_attention(q, k, v, is_causal=bool(causal))
            out.backward(d_o)
    torch.cuda.synchronize()
    print(f"ran {iterations} x fwd+bwd {backend} B{b} H{h} T{t} D{d} causal={causal}")


if __name__ == "__main__":
    main()
