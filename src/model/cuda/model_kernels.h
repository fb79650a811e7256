// SPDX-License-Identifier: Apache-2.0
// The CUDA step's own kernels (everything but the GEMMs and the attention), launched on a
// stream; each returns the launch's cudaError_t. Tensors are row-major in fp16 or bf16
// (`dtype`), math in float32. Rows of h elements need h % 8 == 0 (16-byte vector loads); flat
// element-wise kernels take any count. Plain C++ so the host step code compiled by g++ calls them.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "common/attn_params.h"

namespace fa2b::model::cuda {

// ---- embedding (embedding.cu) ----
// y[r] = table[tokens[r]], rows of h.
cudaError_t embedding_forward(const std::int32_t* tokens, std::int64_t n, const void* table,
                              std::int64_t h, void* y, KernelDType dtype, cudaStream_t stream);

// The batch's positions grouped by token (built once on the host, token_index.cpp): order[]
// lists the positions sorted by (token, position); segment s covers order[seg_start[s] ..
// seg_start[s + 1]) and is token seg_token[s].
struct TokenIndexView {
  const std::int32_t* order = nullptr;
  const std::int32_t* seg_start = nullptr;
  const std::int32_t* seg_token = nullptr;
  std::int64_t segments = 0;
};
// dtable = 0, then dtable[token] = sum over its positions (in position order, float32) of dy:
// deterministic, no atomics.
cudaError_t embedding_backward(const TokenIndexView& index, const void* dy, std::int64_t vocab,
                               std::int64_t h, void* dtable, KernelDType dtype,
                               cudaStream_t stream);

// ---- LayerNorm (layer_norm.cu), eps 1e-5, one warp per row ----
// y = (x - mean) * rstd * gamma + beta; stats[2r] = mean, stats[2r + 1] = rstd (float32).
cudaError_t layer_norm_forward(const void* x, std::int64_t n, std::int64_t h, const void* gamma,
                               const void* beta, void* y, float* stats, KernelDType dtype,
                               cudaStream_t stream);
// dx_add += rstd * (g - mean(g) - xhat * mean(g * xhat)), g = dy * gamma (the residual
// stream's gradient, in place).
cudaError_t layer_norm_backward_dx_add(const void* dy, const void* x, const float* stats,
                                       std::int64_t n, std::int64_t h, const void* gamma,
                                       void* dx_add, KernelDType dtype, cudaStream_t stream);

// ---- column reductions (column_sums.cu): per-chunk float32 partial sums, then a second pass
// summing the chunks in order (deterministic, no atomics) ----
// Rows are split into `chunks` ranges; partials holds chunks * cols floats (chunks * 2h for
// the LayerNorm parameters).
cudaError_t column_sums(const void* dy, std::int64_t n, std::int64_t cols, void* out,
                        float* partials, int chunks, KernelDType dtype, cudaStream_t stream);
// dgamma[i] = sum_r dy[r, i] * xhat[r, i], dbeta[i] = sum_r dy[r, i] (overwritten).
cudaError_t layer_norm_param_grads(const void* dy, const void* x, const float* stats,
                                   std::int64_t n, std::int64_t h, void* dgamma, void* dbeta,
                                   float* partials, int chunks, KernelDType dtype,
                                   cudaStream_t stream);

// ---- loss and element-wise (loss.cu, gelu.cu) ----
inline constexpr int kLossBlocks = 1024;  // partial sums of the loss reduction
// *out = sum(x[0 .. count)) / count, the sum in float32 per block and float64 across blocks;
// partials holds kLossBlocks floats.
cudaError_t mean_all(const void* x, std::int64_t count, float* partials, double* out,
                     KernelDType dtype, cudaStream_t stream);
// x[i] = stddev * N(0, 1) for i in [0, count), rounded to dtype: Box-Muller on a counter-based
// hash of (seed, first + i), so any slice of a flat buffer draws the same values wherever it is
// generated.
cudaError_t init_normal(void* x, std::int64_t count, std::uint64_t seed, std::uint64_t first,
                        float stddev, KernelDType dtype, cudaStream_t stream);
// x[0 .. count) = value (rounded to dtype).
cudaError_t fill(void* x, std::int64_t count, float value, KernelDType dtype, cudaStream_t stream);
// GELU, tanh approximation: y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
cudaError_t gelu_forward(const void* x, std::int64_t count, void* y, KernelDType dtype,
                         cudaStream_t stream);
// d *= gelu'(x), in place.
cudaError_t gelu_backward_inplace(const void* x, std::int64_t count, void* d, KernelDType dtype,
                                  cudaStream_t stream);

// ---- AdamW (adamw.cu): one fused pass over the flat buffers ----
// PyTorch's AdamW as model::adamw_update, float32 math, each of param, m, v rounded to the
// dtype once when stored. bc1 = 1 - beta1^step, bc2 = 1 - beta2^step.
struct AdamWArgs {
  float lr, beta1, beta2, eps, weight_decay, bc1, bc2;
};
cudaError_t adamw_update(void* param, const void* grad, void* m, void* v, std::int64_t count,
                         const AdamWArgs& a, KernelDType dtype, cudaStream_t stream);

}  // namespace fa2b::model::cuda
