// SPDX-License-Identifier: Apache-2.0
// LayerNorm over the hidden dim, statistics saved as (mean, rstd) per row for the backward.
#include <cmath>

#include "backends/cpu_common.h"
#include "model/ops.h"

namespace fa2b::model {

void layer_norm_forward(const float* x, std::int64_t n, std::int64_t h, const float* gamma,
                        const float* beta, float* y, float* stats) {
  cpu::parallel_for(cpu::thread_count(), n, [&](int, std::int64_t r) {
    const float* xr = x + r * h;
    float mean = 0.0f;
    for (std::int64_t i = 0; i < h; ++i) mean += xr[i];
    mean /= static_cast<float>(h);
    float var = 0.0f;
    for (std::int64_t i = 0; i < h; ++i) var += (xr[i] - mean) * (xr[i] - mean);
    var /= static_cast<float>(h);
    const float rstd = 1.0f / std::sqrt(var + kLayerNormEps);
    for (std::int64_t i = 0; i < h; ++i) y[r * h + i] = (xr[i] - mean) * rstd * gamma[i] + beta[i];
    stats[2 * r] = mean;
    stats[2 * r + 1] = rstd;
  });
}

void layer_norm_backward_add(const float* dy, const float* x, const float* stats, std::int64_t n,
                             std::int64_t h, const float* gamma, float* dx_add, float* dgamma,
                             float* dbeta) {
  // Input gradient per row: rstd * (g - mean(g) - xhat * mean(g * xhat)), g = dy * gamma.
  cpu::parallel_for(cpu::thread_count(), n, [&](int, std::int64_t r) {
    const float mean = stats[2 * r], rstd = stats[2 * r + 1];
    const float* xr = x + r * h;
    const float* dyr = dy + r * h;
    float g_mean = 0.0f, gx_mean = 0.0f;
    for (std::int64_t i = 0; i < h; ++i) {
      const float g = dyr[i] * gamma[i];
      g_mean += g;
      gx_mean += g * (xr[i] - mean) * rstd;
    }
    g_mean /= static_cast<float>(h);
    gx_mean /= static_cast<float>(h);
    for (std::int64_t i = 0; i < h; ++i) {
      const float xhat = (xr[i] - mean) * rstd;
      dx_add[r * h + i] += rstd * (dyr[i] * gamma[i] - g_mean - xhat * gx_mean);
    }
  });
  // Parameter gradients: one column per work item, summed over rows.
  cpu::parallel_for(cpu::thread_count(), h, [&](int, std::int64_t i) {
    float dg = 0.0f, db = 0.0f;
    for (std::int64_t r = 0; r < n; ++r) {
      const float xhat = (x[r * h + i] - stats[2 * r]) * stats[2 * r + 1];
      dg += dy[r * h + i] * xhat;
      db += dy[r * h + i];
    }
    dgamma[i] = dg;
    dbeta[i] = db;
  });
}

}  // namespace fa2b::model
