// SPDX-License-Identifier: Apache-2.0
// The non-attention layers of the transformer step on the host, float32, row-major. Each
// backward overwrites (never accumulates into) its parameter gradients, so one step needs no
// zeroing pass; input gradients are overwritten too, except where a name says "add".
#pragma once

#include <cstdint>

namespace fa2b::model {

// y[n, out] = x[n, in] * w[in, out] + b[out] (b may be null); with `add`, y += instead.
void linear_forward(const float* x, std::int64_t n, std::int64_t in, const float* w, const float* b,
                    std::int64_t out, float* y, bool add);
// dx = dy w^T (skipped when dx is null), dw = x^T dy, db = column sums of dy (when db is set).
void linear_backward(const float* x, const float* dy, std::int64_t n, std::int64_t in,
                     std::int64_t out, const float* w, float* dx, float* dw, float* db);

inline constexpr float kLayerNormEps = 1e-5f;
// y = (x - mean) * rstd * gamma + beta per row of h; stats[2r] = mean, stats[2r+1] = rstd.
void layer_norm_forward(const float* x, std::int64_t n, std::int64_t h, const float* gamma,
                        const float* beta, float* y, float* stats);
// dx_add += the input gradient; dgamma, dbeta overwritten.
void layer_norm_backward_add(const float* dy, const float* x, const float* stats, std::int64_t n,
                             std::int64_t h, const float* gamma, float* dx_add, float* dgamma,
                             float* dbeta);

// GELU, tanh approximation (GPT-2's): 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
void gelu_forward(const float* x, std::int64_t count, float* y);
// d[i] *= gelu'(x[i]), in place.
void gelu_backward_inplace(const float* x, std::int64_t count, float* d);

// y[r] = table[tokens[r]] (rows of h).
void embedding_forward(const std::int32_t* tokens, std::int64_t n, const float* table,
                       std::int64_t h, float* y);
// dtable = 0 everywhere, then dtable[tokens[r]] += dy[r].
void embedding_backward(const std::int32_t* tokens, std::int64_t n, const float* dy,
                        std::int64_t vocab, std::int64_t h, float* dtable);

// PyTorch's AdamW (decoupled weight decay, bias-corrected moments), `step` counts from 1.
struct AdamWSettings {
  float lr = 1e-4f, beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f, weight_decay = 0.01f;
};
void adamw_update(float* param, const float* grad, float* m, float* v, std::int64_t count,
                  const AdamWSettings& s, std::int64_t step);

}  // namespace fa2b::model
