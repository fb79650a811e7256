// SPDX-License-Identifier: Apache-2.0
// GELU (tanh approximation), the token embedding and AdamW: the step's elementwise layers.
#include <algorithm>
#include <cmath>

#include "backends/cpu_common.h"
#include "model/ops.h"

namespace fa2b::model {
namespace {

constexpr float kSqrt2OverPi = 0.7978845608028654f;
constexpr float kGeluCubic = 0.044715f;

}  // namespace

void gelu_forward(const float* x, std::int64_t count, float* y) {
  for (std::int64_t i = 0; i < count; ++i) {
    const float u = kSqrt2OverPi * (x[i] + kGeluCubic * x[i] * x[i] * x[i]);
    y[i] = 0.5f * x[i] * (1.0f + std::tanh(u));
  }
}

void gelu_backward_inplace(const float* x, std::int64_t count, float* d) {
  for (std::int64_t i = 0; i < count; ++i) {
    const float xi = x[i];
    const float t = std::tanh(kSqrt2OverPi * (xi + kGeluCubic * xi * xi * xi));
    const float du = kSqrt2OverPi * (1.0f + 3.0f * kGeluCubic * xi * xi);
    d[i] *= 0.5f * (1.0f + t) + 0.5f * xi * (1.0f - t * t) * du;
  }
}

void embedding_forward(const std::int32_t* tokens, std::int64_t n, const float* table,
                       std::int64_t h, float* y) {
  for (std::int64_t r = 0; r < n; ++r) {
    const float* row = table + static_cast<std::int64_t>(tokens[r]) * h;
    std::copy(row, row + h, y + r * h);
  }
}

void embedding_backward(const std::int32_t* tokens, std::int64_t n, const float* dy,
                        std::int64_t vocab, std::int64_t h, float* dtable) {
  std::fill(dtable, dtable + vocab * h, 0.0f);
  for (std::int64_t r = 0; r < n; ++r) {
    float* row = dtable + static_cast<std::int64_t>(tokens[r]) * h;
    for (std::int64_t i = 0; i < h; ++i) row[i] += dy[r * h + i];
  }
}

void adamw_update(float* param, const float* grad, float* m, float* v, std::int64_t count,
                  const AdamWSettings& s, std::int64_t step) {
  const float bc1 = 1.0f - std::pow(s.beta1, static_cast<float>(step));
  const float bc2 = 1.0f - std::pow(s.beta2, static_cast<float>(step));
  for (std::int64_t i = 0; i < count; ++i) {
    param[i] -= s.lr * s.weight_decay * param[i];
    m[i] = s.beta1 * m[i] + (1.0f - s.beta1) * grad[i];
    v[i] = s.beta2 * v[i] + (1.0f - s.beta2) * grad[i] * grad[i];
    param[i] -= s.lr * (m[i] / bc1) / (std::sqrt(v[i] / bc2) + s.eps);
  }
}

}  // namespace fa2b::model
