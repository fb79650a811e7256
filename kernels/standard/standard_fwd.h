// SPDX-License-Identifier: Apache-2.0
// The standard (cuBLAS) forward as a host function over caller-owned buffers, the same three
// steps as src/backends/cuda/standard_backend.cpp (S = scale Q K^T in float32 by cuBLAS,
// standard_softmax writing P and LSE, O = P V by cuBLAS), batched per (batch, group position)
// like the backward (standard_gemm.h), so the backward's tests and callers get the P it needs.
#pragma once

#include <cublas_v2.h>

#include <cstddef>
#include <string>

#include "common/attn_params.h"
#include "standard/standard_status.h"

namespace fa2b {

// fp16 / bf16, H a multiple of H_kv, every size >= 1, and every row stride, T_q, T_k and D
// within cuBLAS's 32-bit ints. Any stride alignment (cuBLAS and our scalar kernels need none).
bool standard_supported(const AttnParams& p, std::string* why);

// Bytes of S (float32) and of P (input dtype): B*H*T_q*T_k elements each, rows of T_k with no
// padding, row r = (b*H + h)*T_q + i.
std::size_t standard_s_bytes(const AttnParams& p);
std::size_t standard_p_bytes(const AttnParams& p);

// Runs the forward on the handle's stream (cublasSetStream and cublasSetWorkspace are the
// caller's). Writes S, P (the backward's saved P), O and LSE (when p.lse is non-null).
StandardStatus standard_attention_fwd(const AttnParams& p, float* S, void* P,
                                      cublasHandle_t handle);

}  // namespace fa2b
