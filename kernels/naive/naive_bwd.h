// SPDX-License-Identifier: Apache-2.0
// Backward of the naive (materialising) attention on CUDA: the textbook algorithm over the P
// the forward saved. Host entry points; the stages are in naive_bwd_*.cu and naive_gemm_*.cu.
//
//   1. dP = dO V^T           float32 [B, H, T_q, ld]  (the QK^T GEMM on dO and V, scale 1)
//   2. dS = P o (dP - D_i)   input dtype [B, H, T_q, ld], D_i = rowsum(dO o O) per row
//   3. dQ = scale * dS K     (the PV GEMM on dS and K)
//   4. dK = scale * dS^T Q   summed over each KV head's query heads (GQA)
//   5. dV = P^T dO           likewise
// ld = T_k rounded up to 8, as the forward's S and P. dP is kept in float32 so that dP - D_i,
// a difference of two O(|dO||V|) numbers, loses nothing before the single rounding of dS;
// dS is stored in the input dtype because the GEMMs 3 and 4 read it on tensor cores.
// Causal tiles that no row sees are skipped by every stage, as in the forward.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "common/attn_params.h"

namespace fa2b {

// naive_supported(p.fwd) plus 16-byte aligned dO, dQ, dK, dV (every row is moved in 16-byte
// copies; dO uses O's strides, dQ/dK/dV those of Q/K/V, which naive_supported checks).
bool naive_bwd_supported(const AttnBwdParams& p, std::string* why);

// Bytes of device workspace the backward needs for the shape of `p` (the forward's params):
// dP float32 then dS in the input dtype, each B*H*T_q*ld elements rounded up to 256 bytes:
//   align256(4 * B*H*T_q*ld) + align256(2 * B*H*T_q*ld),   ld = (T_k + 7) / 8 * 8,
// the same number as naive_workspace_bytes(p). Separate from the forward's workspace, whose
// P (naive_saved_p_offset) must still be intact; its S half may be reused by the caller.
std::size_t naive_bwd_workspace_bytes(const AttnParams& p);

// Runs the backward on `stream`. Reads p.fwd.{q,k,v,o} (O is the forward's output) and p.d_o;
// `saved_P` is the forward's P: static_cast<char*>(forward workspace) +
// naive_saved_p_offset(p.fwd), from a naive_attention call on the same tensors and shape.
// p.fwd.lse is not read (P is kept, not recomputed). `workspace` holds
// naive_bwd_workspace_bytes(p.fwd) bytes, 256-byte aligned (cudaMalloc is), and need not be
// initialised. Writes every element of p.d_q, p.d_k, p.d_v. Returns cudaErrorInvalidValue when
// naive_bwd_supported fails or a pointer is null, else the first launch error.
cudaError_t naive_attention_bwd(const AttnBwdParams& p, const void* saved_P, void* workspace,
                                cudaStream_t stream);

}  // namespace fa2b
