// SPDX-License-Identifier: Apache-2.0
// A float64 forward of the transformer step's model, written apart from src/model/ (plain
// loops, nothing shared but the parameter layout), for finite-difference gradient checks.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "core/model_case.h"
#include "model/param_layout.h"

namespace fa2b::model_reference {

using Vec = std::vector<double>;

// y[n, out] = x[n, in] W[in, out] + b
inline Vec linear(const Vec& x, std::int64_t n, std::int64_t in, const double* W, const double* b,
                  std::int64_t out) {
  Vec y(static_cast<std::size_t>(n * out), 0.0);
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t o = 0; o < out; ++o) {
      double s = b ? b[o] : 0.0;
      for (std::int64_t i = 0; i < in; ++i) s += x[r * in + i] * W[i * out + o];
      y[r * out + o] = s;
    }
  return y;
}

inline Vec layer_norm(const Vec& x, std::int64_t n, std::int64_t h, const double* g,
                      const double* b) {
  Vec y(x.size());
  for (std::int64_t r = 0; r < n; ++r) {
    double mean = 0, var = 0;
    for (std::int64_t i = 0; i < h; ++i) mean += x[r * h + i];
    mean /= h;
    for (std::int64_t i = 0; i < h; ++i) var += (x[r * h + i] - mean) * (x[r * h + i] - mean);
    var /= h;
    for (std::int64_t i = 0; i < h; ++i)
      y[r * h + i] = (x[r * h + i] - mean) / std::sqrt(var + 1e-5) * g[i] + b[i];
  }
  return y;
}

inline double gelu_tanh(double x) {
  return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
}

// Causal softmax attention per (batch, head) on the fused [tokens, qkv_width] rows.
inline Vec attention(const Vec& qkv, const ModelCase& m) {
  const std::int64_t h = m.hidden, D = m.head_dim(), W = m.qkv_width(), T = m.T;
  const std::int64_t group = m.heads / m.H_kv;
  Vec o(static_cast<std::size_t>(m.tokens() * h), 0.0);
  for (std::int64_t b = 0; b < m.B; ++b)
    for (std::int64_t hd = 0; hd < m.heads; ++hd) {
      const std::int64_t kvh = hd / group;
      for (std::int64_t i = 0; i < T; ++i) {
        const double* q = &qkv[(b * T + i) * W + hd * D];
        std::vector<double> s(static_cast<std::size_t>(i + 1));
        double mx = -1e300;
        for (std::int64_t j = 0; j <= i; ++j) {
          const double* k = &qkv[(b * T + j) * W + h + kvh * D];
          double d = 0;
          for (std::int64_t e = 0; e < D; ++e) d += q[e] * k[e];
          s[j] = d / std::sqrt(static_cast<double>(D));
          mx = std::max(mx, s[j]);
        }
        double l = 0;
        for (auto& v : s) l += (v = std::exp(v - mx));
        for (std::int64_t j = 0; j <= i; ++j) {
          const double* v = &qkv[(b * T + j) * W + h + m.H_kv * D + kvh * D];
          for (std::int64_t e = 0; e < D; ++e) o[(b * T + i) * h + hd * D + e] += s[j] / l * v[e];
        }
      }
    }
  return o;
}

// The loss (mean of the logits) of the model with parameters `p` on `tokens`.
inline double loss(const ModelCase& m, const model::ParamLayout& lay, const Vec& p,
                   const std::int32_t* tokens) {
  const std::int64_t n = m.tokens(), h = m.hidden, f = m.mlp_hidden();
  Vec x(static_cast<std::size_t>(n * h));
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t i = 0; i < h; ++i) x[r * h + i] = p[lay.embedding + tokens[r] * h + i];
  for (const model::BlockParams& b : lay.blocks) {
    const Vec a = layer_norm(x, n, h, &p[b.ln1_g], &p[b.ln1_b]);
    const Vec qkv = linear(a, n, h, &p[b.w_qkv], &p[b.b_qkv], m.qkv_width());
    const Vec proj = linear(attention(qkv, m), n, h, &p[b.w_o], &p[b.b_o], h);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] += proj[i];
    Vec up = linear(layer_norm(x, n, h, &p[b.ln2_g], &p[b.ln2_b]), n, h, &p[b.w_up], &p[b.b_up], f);
    for (auto& v : up) v = gelu_tanh(v);
    const Vec down = linear(up, n, f, &p[b.w_down], &p[b.b_down], h);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] += down[i];
  }
  const Vec logits = linear(layer_norm(x, n, h, &p[lay.lnf_g], &p[lay.lnf_b]), n, h, &p[lay.head],
                            nullptr, m.vocab);
  double s = 0;
  for (double v : logits) s += v;
  return s / static_cast<double>(logits.size());
}

}  // namespace fa2b::model_reference
