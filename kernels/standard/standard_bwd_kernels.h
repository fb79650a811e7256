// SPDX-License-Identifier: Apache-2.0
// The standard backward's own kernels, between its cuBLAS GEMMs. Internal to
// kernels/standard/ (standard_bwd.cu launches them).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "common/attn_params.h"

namespace fa2b {
namespace standard {

// dS = P o (dP - D_i) with D_i = rowsum(dO o O) computed per row in the same kernel. P (input
// dtype), dP (float32) and dS (input dtype) are [B, H, T_q, T_k], rows of T_k, row r =
// (b*H + h)*T_q + i. Every dS element is written: zeros past each row's bottom-right causal
// limit and on rows that see no key.
cudaError_t launch_ds(const AttnBwdParams& p, const void* P, const float* dP, void* dS,
                      cudaStream_t stream);

// Rounds a float32 [B, H_kv, T_k, D] accumulator (contiguous) into a tensor of the input
// dtype laid out like K/V (the given element strides).
cudaError_t launch_round_kv(const AttnParams& p, const float* acc, void* out,
                            std::int64_t batch_stride, std::int64_t head_stride,
                            std::int64_t row_stride, cudaStream_t stream);

}  // namespace standard
}  // namespace fa2b
