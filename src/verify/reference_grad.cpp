// SPDX-License-Identifier: Apache-2.0
#include "verify/reference_grad.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <thread>
#include <utility>

#include "common/input_gen.h"

namespace fa2b {
namespace {

constexpr int kQ = 1, kK = 2, kV = 3, kDO = 4;  // stored_input's tensor numbers

// K and V of one (b, kv head) as float64, K [T_k][D] and V [T_k][D_v]: regenerated once, read
// for every row.
struct HeadKV {
  std::vector<double> k, v;
};

// K and V of sequence b (its own keys only, in a variable-length batch), as placed by the
// case's key layout.
HeadKV load_head(const Case& c, std::int64_t b, std::int64_t hk) {
  HeadKV h;
  const std::int64_t Dv = c.Dv();
  const std::int64_t T_k = sequence_rows_k(c, b);
  const TokenLayout layout = key_layout(c);
  h.k.resize(static_cast<std::size_t>(T_k * c.D));
  h.v.resize(static_cast<std::size_t>(T_k * Dv));
  for (std::int64_t j = 0; j < T_k; ++j) {
    for (std::int64_t d = 0; d < c.D; ++d)
      h.k[j * c.D + d] = stored_input(c, layout, kK, b, hk, j, d);
    for (std::int64_t d = 0; d < Dv; ++d)
      h.v[j * Dv + d] = stored_input(c, layout, kV, b, hk, j, d);
  }
  return h;
}

// Everything the backward needs of one query row: its inputs, P over its visible keys, dP,
// and D_i.
struct RowGrad {
  // q: [D]; d_o: [D_v]; p, dp: [key - keys.first] over the visible keys
  std::vector<double> q, d_o, p, dp;
  double di = 0;
  VisibleKeys keys;
  // Index of key j in p and dp; -1 when the row does not see it.
  std::int64_t at(std::int64_t j) const {
    return j >= keys.first && j <= keys.last ? j - keys.first : -1;
  }
};

void row_grad(const Case& c, const HeadKV& kv, std::int64_t b, std::int64_t h, std::int64_t i,
              RowGrad& g) {
  const std::int64_t D = c.D;
  const std::int64_t Dv = c.Dv();  // dO and V; S = Q K^T contracts over D, dP = dO V^T over D_v
  const double scale = 1.0 / std::sqrt(static_cast<double>(D));
  g.keys = row_visible_keys(c, b, i);  // a sequence's own keys, masked at its own length
  const std::int64_t visible = g.keys.count();
  g.q.resize(static_cast<std::size_t>(D));
  g.d_o.resize(static_cast<std::size_t>(Dv));
  const TokenLayout layout = query_layout(c);
  for (std::int64_t d = 0; d < D; ++d) g.q[d] = stored_input(c, layout, kQ, b, h, i, d);
  for (std::int64_t d = 0; d < Dv; ++d) g.d_o[d] = stored_input(c, layout, kDO, b, h, i, d);
  g.p.assign(static_cast<std::size_t>(visible), 0.0);
  g.dp.assign(static_cast<std::size_t>(visible), 0.0);
  g.di = 0;
  if (visible == 0) return;  // no visible key: O = 0, nothing flows back
  double m = -std::numeric_limits<double>::infinity();
  for (std::int64_t j = 0; j < visible; ++j) {
    double s = 0, dp = 0;
    const double* kj = &kv.k[(g.keys.first + j) * D];
    const double* vj = &kv.v[(g.keys.first + j) * Dv];
    for (std::int64_t d = 0; d < D; ++d) s += g.q[d] * kj[d];
    for (std::int64_t d = 0; d < Dv; ++d) dp += g.d_o[d] * vj[d];
    g.p[j] = s * scale;
    g.dp[j] = dp;
    m = std::max(m, g.p[j]);
  }
  double l = 0;
  for (std::int64_t j = 0; j < visible; ++j) {
    g.p[j] = std::exp(g.p[j] - m);
    l += g.p[j];
  }
  // D_i = dO . O = sum_j P_ij (dO . V_j) = sum_j P_ij dP_ij.
  for (std::int64_t j = 0; j < visible; ++j) {
    g.p[j] /= l;
    g.di += g.p[j] * g.dp[j];
  }
}

std::int64_t thread_count(std::int64_t n) {
  const std::int64_t hw = std::max<unsigned>(1, std::thread::hardware_concurrency());
  return std::max<std::int64_t>(1, std::min(n, hw));
}

template <typename F>
void parallel_for(std::int64_t n, F&& f) {
  const std::int64_t threads = thread_count(n);
  std::vector<std::thread> pool;
  for (std::int64_t t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (std::int64_t i = t; i < n; i += threads) f(t, i);
    });
  }
  for (auto& th : pool) th.join();
}

void reference_dq(const Case& c, const std::vector<RowRef>& rows, std::vector<double>& dq) {
  const std::int64_t D = c.D;
  const double scale = 1.0 / std::sqrt(static_cast<double>(D));
  dq.assign(rows.size() * static_cast<std::size_t>(D), 0.0);
  std::map<std::pair<std::int64_t, std::int64_t>, HeadKV> heads;
  for (const RowRef& r : rows) {
    const std::pair<std::int64_t, std::int64_t> key{r.b, r.h / (c.H / c.H_kv)};
    if (!heads.count(key)) heads.emplace(key, load_head(c, key.first, key.second));
  }
  parallel_for(static_cast<std::int64_t>(rows.size()), [&](std::int64_t, std::int64_t r) {
    const RowRef& row = rows[r];
    const HeadKV& kv = heads.at({row.b, row.h / (c.H / c.H_kv)});
    RowGrad g;
    row_grad(c, kv, row.b, row.h, row.i, g);
    double* out = &dq[r * D];
    for (std::int64_t x = 0; x < g.keys.count(); ++x) {
      const double ds = g.p[x] * (g.dp[x] - g.di);
      const double* kj = &kv.k[(g.keys.first + x) * D];
      for (std::int64_t d = 0; d < D; ++d) out[d] += scale * ds * kj[d];
    }
  });
}

// dK and dV of the sampled key rows of one (b, kv head): every query row of the group adds
// its share; per-thread partial sums are added in thread order, so the result is
// deterministic for a given thread count.
void reference_dkdv_head(const Case& c, std::int64_t b, std::int64_t hk,
                         const std::vector<std::size_t>& picked, const std::vector<KeyRowRef>& keys,
                         GradReference& out) {
  const std::int64_t D = c.D;
  const std::int64_t Dv = c.Dv();  // dV's and dO's head dim; dK's is D
  const double scale = 1.0 / std::sqrt(static_cast<double>(D));
  const std::int64_t group = c.H / c.H_kv;
  const HeadKV kv = load_head(c, b, hk);
  const std::int64_t T_q = sequence_rows_q(c, b);
  const std::int64_t n_rows = group * T_q;
  const std::int64_t threads = thread_count(n_rows);
  std::vector<std::vector<double>> dk(static_cast<std::size_t>(threads)),
      dv(static_cast<std::size_t>(threads));
  parallel_for(n_rows, [&](std::int64_t t, std::int64_t item) {
    auto& pk = dk[static_cast<std::size_t>(t)];
    auto& pv = dv[static_cast<std::size_t>(t)];
    if (pk.empty()) {
      pk.assign(picked.size() * static_cast<std::size_t>(D), 0.0);
      pv.assign(picked.size() * static_cast<std::size_t>(Dv), 0.0);
    }
    const std::int64_t h = hk * group + item / T_q, i = item % T_q;
    RowGrad g;
    row_grad(c, kv, b, h, i, g);
    for (std::size_t s = 0; s < picked.size(); ++s) {
      const std::int64_t x = g.at(keys[picked[s]].j);
      if (x < 0) continue;
      const double ds = g.p[x] * (g.dp[x] - g.di);
      for (std::int64_t d = 0; d < D; ++d) pk[s * D + d] += scale * ds * g.q[d];
      for (std::int64_t d = 0; d < Dv; ++d) pv[s * Dv + d] += g.p[x] * g.d_o[d];
    }
  });
  for (std::int64_t t = 0; t < threads; ++t) {
    const auto& pk = dk[static_cast<std::size_t>(t)];
    const auto& pv = dv[static_cast<std::size_t>(t)];
    if (pk.empty()) continue;
    for (std::size_t s = 0; s < picked.size(); ++s) {
      for (std::int64_t d = 0; d < D; ++d) out.dk[picked[s] * D + d] += pk[s * D + d];
      for (std::int64_t d = 0; d < Dv; ++d) out.dv[picked[s] * Dv + d] += pv[s * Dv + d];
    }
  }
}

}  // namespace

namespace {

// A variable-length batch's key rows: its real keys only (j < lengths[b]). All of them when they
// fit; otherwise the first and last key of every non-empty sequence in the first and last KV
// head, and random keys of those sequences up to max_rows (each sampled (sequence, KV head)
// costs a float64 forward of its group's rows).
std::vector<KeyRowRef> sample_varlen_key_rows(const Case& c, int max_rows, std::uint64_t seed) {
  std::vector<KeyRowRef> keys;
  std::int64_t total = 0;
  for (std::int64_t len : c.lengths) total += len * c.H_kv;
  if (total <= max_rows) {
    for (std::int64_t b = 0; b < c.B; ++b)
      for (std::int64_t hk = 0; hk < c.H_kv; ++hk)
        for (std::int64_t j = 0; j < sequence_rows_k(c, b); ++j) keys.push_back({b, hk, j});
    return keys;
  }
  std::vector<std::int64_t> heads = {0};
  if (c.H_kv > 1) heads.push_back(c.H_kv - 1);
  std::vector<std::int64_t> seqs;
  for (std::int64_t b = 0; b < c.B; ++b)
    if (sequence_rows_k(c, b) > 0) seqs.push_back(b);
  std::uint64_t state = seed ^ 0x27d4eb2f165667c5ull;
  const std::int64_t per_pair = std::max<std::int64_t>(
      2,
      max_rows / std::max<std::int64_t>(1, static_cast<std::int64_t>(seqs.size() * heads.size())));
  for (std::int64_t b : seqs) {
    const std::int64_t len = sequence_rows_k(c, b);
    for (std::int64_t hk : heads) {
      std::vector<std::int64_t> js = {0};
      if (len > 1) js.push_back(len - 1);
      while (static_cast<std::int64_t>(js.size()) < std::min(per_pair, len)) {
        state = splitmix64(state);
        const auto cand = static_cast<std::int64_t>(state % static_cast<std::uint64_t>(len));
        if (std::find(js.begin(), js.end(), cand) == js.end()) js.push_back(cand);
      }
      std::sort(js.begin(), js.end());
      for (std::int64_t j : js) keys.push_back({b, hk, j});
    }
  }
  return keys;
}

}  // namespace

std::vector<KeyRowRef> sample_key_rows(const Case& c, int max_rows, std::uint64_t seed) {
  if (c.varlen()) return sample_varlen_key_rows(c, max_rows, seed);
  std::vector<KeyRowRef> keys;
  const std::int64_t heads_total = c.B * c.H_kv;
  if (heads_total * c.T_k <= max_rows) {
    for (std::int64_t b = 0; b < c.B; ++b)
      for (std::int64_t hk = 0; hk < c.H_kv; ++hk)
        for (std::int64_t j = 0; j < c.T_k; ++j) keys.push_back({b, hk, j});
    return keys;
  }
  // Each sampled KV head costs a full float64 forward of its group: two heads at most.
  std::vector<std::int64_t> heads = {0};
  if (heads_total > 1) heads.push_back(heads_total - 1);
  const std::int64_t per_head =
      std::max<std::int64_t>(2, max_rows / static_cast<std::int64_t>(heads.size()));
  std::uint64_t state = seed ^ 0x27d4eb2f165667c5ull;
  for (std::int64_t bhk : heads) {
    std::vector<std::int64_t> js = {0};
    if (c.T_k > 1) js.push_back(c.T_k - 1);
    while (static_cast<std::int64_t>(js.size()) < std::min(per_head, c.T_k)) {
      state = splitmix64(state);
      const auto cand = static_cast<std::int64_t>(state % static_cast<std::uint64_t>(c.T_k));
      if (std::find(js.begin(), js.end(), cand) == js.end()) js.push_back(cand);
    }
    std::sort(js.begin(), js.end());
    for (std::int64_t j : js) keys.push_back({bhk / c.H_kv, bhk % c.H_kv, j});
  }
  return keys;
}

GradReference reference_grads(const Case& c, const std::vector<RowRef>& rows,
                              const std::vector<KeyRowRef>& keys) {
  GradReference ref;
  reference_dq(c, rows, ref.dq);
  ref.dk.assign(keys.size() * static_cast<std::size_t>(c.D), 0.0);
  ref.dv.assign(keys.size() * static_cast<std::size_t>(c.Dv()), 0.0);
  std::map<std::pair<std::int64_t, std::int64_t>, std::vector<std::size_t>> by_head;
  for (std::size_t s = 0; s < keys.size(); ++s) by_head[{keys[s].b, keys[s].hk}].push_back(s);
  for (const auto& [head, picked] : by_head) {
    reference_dkdv_head(c, head.first, head.second, picked, keys, ref);
  }
  return ref;
}

}  // namespace fa2b
