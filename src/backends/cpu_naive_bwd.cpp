// SPDX-License-Identifier: Apache-2.0
// cpu-naive's backward: the materialised textbook algorithm over the P its forward saved.
#include <algorithm>
#include <vector>

#include "backends/cpu_backward.h"
#include "backends/cpu_common.h"

namespace fa2b::cpu {
namespace {

constexpr int kRows = 64;  // query rows per work item
constexpr int kKeys = 64;  // keys per work item / converted tile

// Phase 1: dP = dO V^T into ds, then dS = P o (dP - D_i) in place (float32 storage holding
// values rounded to the input dtype); one item per
// (b, h, block of kRows query rows), sweeping every key.
void softmax_grad(const AttnBwdParams& bp, const void* saved_p, float* ds, const float* di,
                  int threads) {
  const AttnParams& p = bp.fwd;
  // dO and V are D_v wide (attn_dv): dP = dO V^T contracts over D_v, not Q's and K's D.
  const int D = attn_dv(p);
  const std::int64_t blocks = (p.T_q + kRows - 1) / kRows;
  std::vector<std::vector<float>> scratch(static_cast<std::size_t>(threads));
  parallel_for(threads, static_cast<std::int64_t>(p.B) * p.H * blocks,
               [&](int t, std::int64_t item) {
                 std::vector<float>& buf = scratch[static_cast<std::size_t>(t)];
                 buf.resize(static_cast<std::size_t>(kRows + kKeys) * D + kKeys);
                 float* d_o = buf.data();     // [rows][D]
                 float* v = d_o + kRows * D;  // [keys][D]
                 float* pr = v + kKeys * D;   // [keys]: one row of P
                 const std::int64_t bh = item / blocks;
                 const int b = static_cast<int>(bh / p.H), h = static_cast<int>(bh % p.H);
                 const int hk = kv_head(p, h);
                 const std::int64_t i0 = item % blocks * kRows;
                 const int rows = static_cast<int>(std::min<std::int64_t>(kRows, p.T_q - i0));
                 for (int r = 0; r < rows; ++r)
                   load_row(bp.d_o, o_offset(p, b, h, i0 + r), D, p.dtype, d_o + r * D);
                 float* ds_rows = ds + (bh * p.T_q + i0) * p.T_k;
                 for (std::int64_t j0 = 0; j0 < p.T_k; j0 += kKeys) {
                   const int keys = static_cast<int>(std::min<std::int64_t>(kKeys, p.T_k - j0));
                   for (int c = 0; c < keys; ++c)
                     load_row(p.v, v_offset(p, b, hk, j0 + c), D, p.dtype, v + c * D);
                   scores_tile(d_o, D, rows, v, D, keys, D, 1.0f, ds_rows + j0, p.T_k);
                   for (int r = 0; r < rows; ++r) {
                     const std::int64_t row = bh * p.T_q + i0 + r;
                     load_row(saved_p, row * p.T_k + j0, keys, p.dtype, pr);
                     float* dsr = ds_rows + r * p.T_k + j0;
                     // dS in the input dtype, as a materialising GPU backward stores it for its
                     // GEMMs.
                     for (int c = 0; c < keys; ++c)
                       dsr[c] = round_to(pr[c] * (dsr[c] - di[row]), p.dtype);
                   }
                 }
               });
}

// Phase 2: dQ = scale dS K; one item per (b, h, block of kRows query rows).
void grad_q(const AttnBwdParams& bp, const float* ds, int threads) {
  const AttnParams& p = bp.fwd;
  const int D = p.D;
  const std::int64_t blocks = (p.T_q + kRows - 1) / kRows;
  std::vector<std::vector<float>> scratch(static_cast<std::size_t>(threads));
  parallel_for(threads, static_cast<std::int64_t>(p.B) * p.H * blocks,
               [&](int t, std::int64_t item) {
                 std::vector<float>& buf = scratch[static_cast<std::size_t>(t)];
                 buf.assign(static_cast<std::size_t>(kRows + kKeys) * D, 0.0f);
                 float* acc = buf.data();     // [rows][D]
                 float* k = acc + kRows * D;  // [keys][D]
                 const std::int64_t bh = item / blocks;
                 const int b = static_cast<int>(bh / p.H), h = static_cast<int>(bh % p.H);
                 const int hk = kv_head(p, h);
                 const std::int64_t i0 = item % blocks * kRows;
                 const int rows = static_cast<int>(std::min<std::int64_t>(kRows, p.T_q - i0));
                 const float* ds_rows = ds + (bh * p.T_q + i0) * p.T_k;
                 for (std::int64_t j0 = 0; j0 < p.T_k; j0 += kKeys) {
                   const int keys = static_cast<int>(std::min<std::int64_t>(kKeys, p.T_k - j0));
                   for (int c = 0; c < keys; ++c)
                     load_row(p.k, k_offset(p, b, hk, j0 + c), D, p.dtype, k + c * D);
                   accumulate_pv(ds_rows + j0, p.T_k, rows, k, D, keys, D, acc, D);
                 }
                 for (int r = 0; r < rows; ++r) {
                   float* ar = acc + r * D;
                   for (int d = 0; d < D; ++d) ar[d] *= p.scale;
                   store_row(bp.d_q, q_offset(p, b, h, i0 + r), D, p.dtype, ar);
                 }
               });
}

// Phase 3: dK = scale dS^T Q and dV = P^T dO, summed over the query heads of a KV head's
// group; one item per (b, kv head, block of kKeys keys), sweeping every query row.
void grad_kv(const AttnBwdParams& bp, const void* saved_p, const float* ds, int threads) {
  const AttnParams& p = bp.fwd;
  const int D = p.D;
  const int Dv = attn_dv(p);  // dV and dO: V's head dim; dK and Q: D
  const int group = p.H / p.H_kv;
  const std::int64_t blocks = (p.T_k + kKeys - 1) / kKeys;
  std::vector<std::vector<float>> scratch(static_cast<std::size_t>(threads));
  parallel_for(threads, static_cast<std::int64_t>(p.B) * p.H_kv * blocks,
               [&](int t, std::int64_t item) {
                 std::vector<float>& buf = scratch[static_cast<std::size_t>(t)];
                 buf.assign(static_cast<std::size_t>(kKeys + kRows) * (D + Dv) +
                                2 * static_cast<std::size_t>(kKeys) * kRows + kKeys,
                            0.0f);
                 float* acc_k = buf.data();          // [keys][D]
                 float* acc_v = acc_k + kKeys * D;   // [keys][Dv]
                 float* q = acc_v + kKeys * Dv;      // [rows][D]
                 float* d_o = q + kRows * D;         // [rows][Dv]
                 float* ds_t = d_o + kRows * Dv;     // [keys][rows]
                 float* p_t = ds_t + kKeys * kRows;  // [keys][rows]
                 float* pr = p_t + kKeys * kRows;    // [keys]: one row of P
                 const std::int64_t bhk = item / blocks;
                 const int b = static_cast<int>(bhk / p.H_kv), hk = static_cast<int>(bhk % p.H_kv);
                 const std::int64_t j0 = item % blocks * kKeys;
                 const int keys = static_cast<int>(std::min<std::int64_t>(kKeys, p.T_k - j0));
                 for (int h = hk * group; h < (hk + 1) * group; ++h) {
                   const std::int64_t bh = static_cast<std::int64_t>(b) * p.H + h;
                   for (std::int64_t i0 = 0; i0 < p.T_q; i0 += kRows) {
                     const int rows = static_cast<int>(std::min<std::int64_t>(kRows, p.T_q - i0));
                     for (int r = 0; r < rows; ++r) {
                       load_row(p.q, q_offset(p, b, h, i0 + r), D, p.dtype, q + r * D);
                       load_row(bp.d_o, o_offset(p, b, h, i0 + r), Dv, p.dtype, d_o + r * Dv);
                       const std::int64_t row = bh * p.T_q + i0 + r;
                       load_row(saved_p, row * p.T_k + j0, keys, p.dtype, pr);
                       const float* dsr = ds + row * p.T_k + j0;
                       for (int c = 0; c < keys; ++c) {
                         p_t[c * kRows + r] = pr[c];
                         ds_t[c * kRows + r] = dsr[c];
                       }
                     }
                     accumulate_pv(p_t, kRows, keys, d_o, Dv, rows, Dv, acc_v, Dv);
                     accumulate_pv(ds_t, kRows, keys, q, D, rows, D, acc_k, D);
                   }
                 }
                 for (int c = 0; c < keys; ++c) {
                   float* kr = acc_k + c * D;
                   for (int d = 0; d < D; ++d) kr[d] *= p.scale;
                   store_row(bp.d_k, k_offset(p, b, hk, j0 + c), D, p.dtype, kr);
                   store_row(bp.d_v, v_offset(p, b, hk, j0 + c), Dv, p.dtype, acc_v + c * Dv);
                 }
               });
}

}  // namespace

void naive_backward(const AttnBwdParams& p, const void* saved_p, float* ds, float* di,
                    int threads) {
  row_sums_do_o(p, di, threads);
  softmax_grad(p, saved_p, ds, di, threads);
  grad_q(p, ds, threads);
  grad_kv(p, saved_p, ds, threads);
}

}  // namespace fa2b::cpu
