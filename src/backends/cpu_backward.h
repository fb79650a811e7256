// SPDX-License-Identifier: Apache-2.0
// The backward passes of the CPU-target backends, as free functions over the runner's tensors
// and the buffers each backend allocated (through the tracker) in prepare().
#pragma once

#include <cstdint>

#include "common/attn_params.h"

namespace fa2b::cpu {

// D_i = rowsum(dO o O) in float32 for every query row, [B, H, T_q] contiguous: the term the
// softmax backward subtracts (dS = P o (dP - D_i)). Reads the stored O and dO.
void row_sums_do_o(const AttnBwdParams& p, float* di, int threads);

// cpu-naive's textbook backward from the P its forward saved ([B, H, T_q, T_k], input dtype):
// dP = dO V^T into `ds` (float32, the forward's S buffer), dS = P o (dP - D_i) in place, then
// dQ = scale dS K, dK = scale dS^T Q, dV = P^T dO (dK, dV summed over a KV head's group).
// Full GEMMs without causal skipping, like its forward; masked entries of P are 0.
void naive_backward(const AttnBwdParams& p, const void* saved_p, float* ds, float* di, int threads);

// Floats of one thread's scratch in flash_backward (tiles of Q, dO, K, V, P, dS and two
// accumulators), rounded up to a cache line; D is the head dim of Q and K, Dv that of V and
// dO (attn_dv()).
std::int64_t flash_backward_scratch_floats(int D, int Dv);
// cpu-flash's FlashAttention-2 backward: P is recomputed tile by tile from Q, K and the saved
// LSE (no T_q x T_k buffer). One pass over key tiles accumulates dK and dV (every query head
// of the KV head's group, every query tile that can see the keys); a second pass over query
// tiles accumulates dQ, so no two threads write one row and no atomics are needed. P and dS
// enter the products rounded to the input dtype, as a GPU kernel's tensor-core operands do.
// Thread t uses the `stride` floats at scratch + t * stride (stride >=
// flash_backward_scratch_floats(D, Dv)). The forward's LSE of row i of (b, h) is
// lse[(b * H + h) * lse_head_stride + i] (p.fwd.lse with stride T_q for a dense batch; a
// sequence view's own, cpu_varlen.h).
void flash_backward(const AttnBwdParams& p, const float* lse, std::int64_t lse_head_stride,
                    float* di, float* scratch, std::int64_t stride, int threads);

}  // namespace fa2b::cpu
