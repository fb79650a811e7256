// SPDX-License-Identifier: Apache-2.0
#include "verify/reference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <thread>

#include "common/input_gen.h"
#include "common/numeric.h"
#include "core/attention_mask.h"
#include "core/seq_lengths.h"

namespace fa2b {
namespace {

KernelInputDist kernel_dist(InputDist d) {
  return static_cast<KernelInputDist>(static_cast<int>(d));
}

float round_to_dtype(float x, DType dt) {
  switch (dt) {
    case DType::fp16:
      return fp16_to_float(float_to_fp16(x));
    case DType::bf16:
      return bf16_to_float(float_to_bf16(x));
    case DType::fp32:
      return x;
  }
  return x;
}

template <typename F>
void parallel_for(std::int64_t n, F&& f) {
  const std::int64_t threads =
      std::max<std::int64_t>(1, std::min<std::int64_t>(n, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (std::int64_t t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (std::int64_t i = t; i < n; i += threads) f(i);
    });
  }
  for (auto& th : pool) th.join();
}

}  // namespace

namespace {

// A variable-length batch's rows: its real rows only (row i < lengths[b]; a padded batch's
// padding rows are not compared). All of them when they fit; otherwise every non-empty sequence
// (evenly spaced ones when there are more than max_rows / 2) with one head each, its first and
// last row and random ones between, so an output written into another sequence's rows shows.
std::vector<RowRef> sample_varlen_rows(const Case& c, int max_rows, std::uint64_t seed) {
  std::vector<RowRef> rows;
  if (total_tokens(c) * c.H <= max_rows) {
    for (std::int64_t b = 0; b < c.B; ++b)
      for (std::int64_t h = 0; h < c.H; ++h)
        for (std::int64_t i = 0; i < c.lengths[b]; ++i) rows.push_back({b, h, i});
    return rows;
  }
  std::vector<std::int64_t> seqs;
  for (std::int64_t b = 0; b < c.B; ++b)
    if (c.lengths[b] > 0) seqs.push_back(b);
  const auto most = static_cast<std::size_t>(std::max(1, max_rows / 2));
  if (seqs.size() > most) {
    std::vector<std::int64_t> spaced;
    for (std::size_t k = 0; k < most; ++k)
      spaced.push_back(seqs[most == 1 ? 0 : k * (seqs.size() - 1) / (most - 1)]);
    seqs = spaced;
  }
  const std::int64_t per_seq =
      std::max<std::int64_t>(2, max_rows / static_cast<std::int64_t>(seqs.size()));
  std::uint64_t state = seed ^ 0x5bd1e995ull;
  for (const std::int64_t b : seqs) {
    const std::int64_t len = c.lengths[b];
    state = splitmix64(state);
    const auto h = static_cast<std::int64_t>(state % static_cast<std::uint64_t>(c.H));
    std::vector<std::int64_t> is = {0};
    if (len > 1) is.push_back(len - 1);
    while (static_cast<std::int64_t>(is.size()) < std::min(per_seq, len)) {
      state = splitmix64(state);
      const auto cand = static_cast<std::int64_t>(state % static_cast<std::uint64_t>(len));
      if (std::find(is.begin(), is.end(), cand) == is.end()) is.push_back(cand);
    }
    std::sort(is.begin(), is.end());
    for (std::int64_t i : is) rows.push_back({b, h, i});
  }
  return rows;
}

// Sequence b of a variable-length batch as a dense B = 1 case of its own length, whose mask is
// the sequence's; c itself when dense.
Case sequence_case(const Case& c, std::int64_t b) {
  if (!c.varlen()) return c;
  Case one = c;
  one.lengths.clear();
  one.B = 1;
  one.T_q = one.T_k = c.lengths[static_cast<std::size_t>(b)];
  return one;
}

}  // namespace

std::vector<RowRef> sample_rows(const Case& c, int max_rows, std::uint64_t seed) {
  if (c.varlen()) return sample_varlen_rows(c, max_rows, seed);
  std::vector<RowRef> rows;
  const std::int64_t total = c.B * c.H * c.T_q;
  if (total <= max_rows) {
    for (std::int64_t b = 0; b < c.B; ++b)
      for (std::int64_t h = 0; h < c.H; ++h)
        for (std::int64_t i = 0; i < c.T_q; ++i) rows.push_back({b, h, i});
    return rows;
  }
  // A few heads: first, last, and pseudo-random ones in between.
  const std::int64_t heads_total = c.B * c.H;
  const std::int64_t n_heads = std::min<std::int64_t>(heads_total, 4);
  std::vector<std::int64_t> heads = {0, heads_total - 1};
  std::uint64_t state = seed ^ 0x5bd1e995ull;
  while (static_cast<std::int64_t>(heads.size()) < n_heads) {
    state = splitmix64(state);
    const auto cand = static_cast<std::int64_t>(state % static_cast<std::uint64_t>(heads_total));
    if (std::find(heads.begin(), heads.end(), cand) == heads.end()) heads.push_back(cand);
  }
  if (n_heads == 1) heads.resize(1);
  const std::int64_t per_head = std::max<std::int64_t>(2, max_rows / n_heads);
  for (std::int64_t bh : heads) {
    const std::int64_t b = bh / c.H, h = bh % c.H;
    std::vector<std::int64_t> is = {0, c.T_q - 1};
    while (static_cast<std::int64_t>(is.size()) < std::min(per_head, c.T_q)) {
      state = splitmix64(state);
      const auto cand = static_cast<std::int64_t>(state % static_cast<std::uint64_t>(c.T_q));
      if (std::find(is.begin(), is.end(), cand) == is.end()) is.push_back(cand);
    }
    if (c.T_q == 1) is.resize(1);
    std::sort(is.begin(), is.end());
    for (std::int64_t i : is) rows.push_back({b, h, i});
  }
  return rows;
}

VisibleKeys row_visible_keys(const Case& c, std::int64_t b, std::int64_t i) {
  return visible_keys(sequence_case(c, b), i);
}

VisibleKeys visible_keys(const Case& c, std::int64_t i) {
  // Written from the definition (core/attention_mask.h's reach), not from the kernels' helper,
  // so that the reference checks the rule rather than repeating an implementation of it.
  const WindowReach reach = window_reach(c);
  const std::int64_t diag = mask_diag(c);
  return {std::max<std::int64_t>(0, i + diag - reach.left),
          std::min<std::int64_t>(c.T_k - 1, i + diag + reach.right)};
}

namespace {
// The head dim of input tensor 1..4: D for Q and K, D_v for V and dO (like O), as the runner
// sizes and fills them (the generator's index runs over the tensor's own elements).
std::int64_t input_width(const Case& c, int tensor) {
  return tensor == 3 || tensor == 4 ? c.Dv() : c.D;
}
}  // namespace

float stored_input(const Case& c, const TokenLayout& layout, int tensor, std::int64_t b,
                   std::int64_t h, std::int64_t t, std::int64_t d) {
  const std::int64_t heads = tensor == 1 || tensor == 4 ? c.H : c.H_kv;
  const auto index = static_cast<std::uint64_t>(
      ((layout.batch_of(b) * heads + h) * layout.rows + layout.row_of(b, t)) *
          input_width(c, tensor) +
      d);
  const float x = input_value(c.measure.seed, static_cast<InputTensor>(tensor), index,
                              kernel_dist(c.measure.inputs));
  return round_to_dtype(x, c.dtype);
}

float stored_input(const Case& c, int tensor, std::int64_t b, std::int64_t h, std::int64_t t,
                   std::int64_t d) {
  const bool like_q = tensor == 1 || tensor == 4;
  const std::int64_t heads = like_q ? c.H : c.H_kv;
  const std::int64_t seq = like_q ? c.T_q : c.T_k;
  const auto index =
      static_cast<std::uint64_t>(((b * heads + h) * seq + t) * input_width(c, tensor) + d);
  const float x = input_value(c.measure.seed, static_cast<InputTensor>(tensor), index,
                              kernel_dist(c.measure.inputs));
  return round_to_dtype(x, c.dtype);
}

void reference_rows(const Case& c, const std::vector<RowRef>& rows, std::vector<double>& out,
                    std::vector<double>& lse) {
  const std::int64_t D = c.D;      // Q and K; the scale is 1/sqrt(D)
  const std::int64_t Dv = c.Dv();  // V and O
  out.assign(rows.size() * Dv, 0.0);
  lse.assign(rows.size(), -std::numeric_limits<double>::infinity());
  const double scale = 1.0 / std::sqrt(static_cast<double>(D));
  const std::int64_t group = c.H / c.H_kv;
  const TokenLayout q_layout = query_layout(c), k_layout = key_layout(c);
  parallel_for(static_cast<std::int64_t>(rows.size()), [&](std::int64_t r) {
    const RowRef& row = rows[r];
    const std::int64_t hk = row.h / group;
    // A sequence of a variable-length batch sees its own keys only, masked as an attention of
    // its own length.
    const VisibleKeys keys = row_visible_keys(c, row.b, row.i);
    if (keys.count() == 0) return;  // no visible key: zeros, lse = -inf
    std::vector<double> q(D), s(static_cast<std::size_t>(keys.count()));
    for (std::int64_t d = 0; d < D; ++d)
      q[d] = stored_input(c, q_layout, 1, row.b, row.h, row.i, d);
    double m = -std::numeric_limits<double>::infinity();
    for (std::int64_t j = keys.first; j <= keys.last; ++j) {
      double acc = 0;
      for (std::int64_t d = 0; d < D; ++d)
        acc += q[d] * stored_input(c, k_layout, 2, row.b, hk, j, d);
      s[j - keys.first] = acc * scale;
      m = std::max(m, s[j - keys.first]);
    }
    double l = 0;
    for (double& x : s) {
      x = std::exp(x - m);
      l += x;
    }
    double* o = &out[r * Dv];
    for (std::int64_t j = keys.first; j <= keys.last; ++j) {
      const double p = s[j - keys.first] / l;
      for (std::int64_t d = 0; d < Dv; ++d)
        o[d] += p * stored_input(c, k_layout, 3, row.b, hk, j, d);
    }
    lse[r] = m + std::log(l);
  });
}

void ErrorAccumulator::add(const double* ref, const float* got, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const double g = got[i];
    if (!std::isfinite(g)) {
      ++nonfinite_;
      max_abs_ = std::numeric_limits<double>::infinity();
      continue;
    }
    const double err = std::abs(g - ref[i]);
    max_abs_ = std::max(max_abs_, err);
    sum_abs_ += err;
    diff2_ += err * err;
    ref2_ += ref[i] * ref[i];
  }
  n_ += static_cast<std::int64_t>(n);
}

ErrorStats ErrorAccumulator::stats() const {
  ErrorStats e;
  e.max_abs_err = max_abs_;
  const std::int64_t finite_n = n_ - nonfinite_;
  e.mean_abs_err = finite_n > 0 ? sum_abs_ / static_cast<double>(finite_n) : kNaN;
  e.rel_l2_err = nonfinite_ > 0 ? std::numeric_limits<double>::infinity()
                                : (ref2_ > 0 ? std::sqrt(diff2_ / ref2_) : std::sqrt(diff2_));
  return e;
}

ErrorStats compare_values(const std::vector<double>& ref, const std::vector<float>& got,
                          std::int64_t* nonfinite_out) {
  ErrorAccumulator acc;
  acc.add(ref.data(), got.data(), std::min(ref.size(), got.size()));
  if (nonfinite_out) *nonfinite_out = acc.nonfinite();
  return acc.stats();
}

Accuracy compare_rows(const Case& c, const std::vector<RowRef>& rows,
                      const std::vector<double>& ref, const std::vector<float>& got) {
  Accuracy a;
  a.checked = true;
  a.rows_checked = static_cast<std::int64_t>(rows.size());
  const std::size_t n = std::min(ref.size(), rows.size() * static_cast<std::size_t>(c.Dv()));
  std::vector<double> used(ref.begin(), ref.begin() + static_cast<std::ptrdiff_t>(n));
  const ErrorStats e = compare_values(used, got, &a.nonfinite);
  a.max_abs_err = e.max_abs_err;
  a.mean_abs_err = e.mean_abs_err;
  a.rel_l2_err = e.rel_l2_err;
  return a;  // the runner replaces nonfinite with the whole-output count
}

}  // namespace fa2b
