// SPDX-License-Identifier: Apache-2.0
// Backward of the standard (cuBLAS) attention: the textbook algorithm over the P the forward
// saved, four cuBLAS GEMMs and our kernels between them (standard_bwd_kernels.h).
//
//   1. dP = dO V^T           cuBLAS, float32 [B, H, T_q, T_k]
//   2. dS = P o (dP - D_i)   ours, input dtype [B, H, T_q, T_k]; D_i = rowsum(dO o O) is
//                            computed per row inside the same kernel (no D buffer)
//   3. dQ = scale * dS K     cuBLAS, written into dQ
//   4. dK = scale * dS^T Q   cuBLAS
//   5. dV = P^T dO           cuBLAS
// GQA (G = H / H_kv > 1): dK/dV of a KV head is the sum over its G query heads. cuBLAS cannot
// express that sum as one strided GEMM in every layout (bshd's query heads of a group are not
// one strided matrix along T_q), so each of the G heads adds its GEMM into a float32
// [B, H_kv, T_k, D] accumulator (beta = 1 after the first) and one of our kernels rounds it
// into dK/dV: one rounding, as with G = 1, where the GEMMs write dK/dV directly. Each GEMM is
// issued B * G times, batched over the H_kv heads (standard_gemm.h).
#pragma once

#include <cublas_v2.h>

#include <cstddef>
#include <string>

#include "common/attn_params.h"
#include "standard/standard_status.h"

namespace fa2b {

// standard_supported(p.fwd) (standard_fwd.h).
bool standard_bwd_supported(const AttnBwdParams& p, std::string* why);

// Bytes of device workspace for the shape of `p` (the forward's params), n = B*H*T_q*T_k:
//   align256(4 n)                        dP, float32
// + align256(2 n)                        dS, input dtype
// + (G > 1 ? 2 * align256(4 * B*H_kv*T_k*D) : 0)   float32 dK and dV accumulators
// align256(x) rounds x up to a multiple of 256.
std::size_t standard_bwd_workspace_bytes(const AttnParams& p);

// Runs the backward on the handle's stream; cublasSetStream and cublasSetWorkspace are the
// caller's (the forward's handle works as it is), and our kernels launch on that stream.
// Reads p.fwd.{q,k,v,o} (O is the forward's output) and p.d_o; `saved_P` is the forward's P
// (standard_attention_fwd's P, [B, H, T_q, T_k] in the input dtype, rows of T_k, zeros past the
// causal limit). p.fwd.lse is not read. `workspace` holds standard_bwd_workspace_bytes(p.fwd)
// bytes, 256-byte aligned, and need not be initialised. Writes every element of p.d_q, p.d_k,
// p.d_v. Returns the first failure, cuBLAS's or CUDA's, naming the step.
StandardStatus standard_attention_bwd(const AttnBwdParams& p, const void* saved_P, void* workspace,
                                      cublasHandle_t handle);

}  // namespace fa2b
