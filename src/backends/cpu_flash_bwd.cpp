// SPDX-License-Identifier: Apache-2.0
// cpu-flash's backward: FlashAttention-2's algorithm on the CPU (P recomputed from the LSE).
#include <algorithm>
#include <cmath>
#include <limits>

#include "backends/cpu_backward.h"
#include "backends/cpu_common.h"

namespace fa2b::cpu {
namespace {

constexpr int kBr = 64;  // query rows per tile
constexpr int kBc = 64;  // keys per tile
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// One thread's tiles, carved out of its slice of the scratch buffer. Q, K and dK are D wide;
// dO, V and dV are Dv = attn_dv() wide (they differ in split-head-dim cases).
struct Tiles {
  float* q;      // [kBr][D]
  float* d_o;    // [kBr][Dv]
  float* k;      // [kBc][D]
  float* v;      // [kBc][Dv]
  float* p;      // [kBr][kBc]: S, then P (rounded to the input dtype)
  float* ds;     // [kBr][kBc]: dP, then dS (rounded to the input dtype)
  float* p_t;    // [kBc][kBr]: P transposed
  float* ds_t;   // [kBc][kBr]: dS transposed
  float* acc_a;  // [max(kBr, kBc)][D]: dK or dQ
  float* acc_b;  // [kBc][Dv]: dV
  float* lse;    // [kBr]
  float* di;     // [kBr]
};

// Generous (the D-wide and Dv-wide terms each count two tiles of both heights), and with
// Dv == D the same count as before split head dims existed.
std::int64_t tile_floats(int D, int Dv) {
  return 2LL * kBr * (D + Dv) + 2LL * kBc * (D + Dv) + 4LL * kBr * kBc + 2LL * kBr;
}

Tiles carve(float* s, int D, int Dv) {
  Tiles t{};
  t.q = s;
  t.d_o = t.q + kBr * D;
  t.k = t.d_o + kBr * Dv;
  t.v = t.k + kBc * D;
  t.p = t.v + kBc * Dv;
  t.ds = t.p + kBr * kBc;
  t.p_t = t.ds + kBr * kBc;
  t.ds_t = t.p_t + kBc * kBr;
  t.acc_a = t.ds_t + kBc * kBr;
  t.acc_b = t.acc_a + std::max(kBr, kBc) * D;
  t.lse = t.acc_b + kBc * Dv;
  t.di = t.lse + kBr;
  return t;
}

// What the passes read beside the tensors: the forward's LSE (row i of (b, h) at
// lse[(b * H + h) * lse_head_stride + i]) and the row sums D_i ([B, H, T_q] contiguous).
struct RowStats {
  const float* lse;
  std::int64_t lse_head_stride;
  const float* di;
};

void load_query_tile(const AttnBwdParams& bp, const RowStats& st, int b, int h, std::int64_t i0,
                     int rows, Tiles& t) {
  const AttnParams& p = bp.fwd;
  const int Dv = attn_dv(p);
  const std::int64_t bh = static_cast<std::int64_t>(b) * p.H + h;
  for (int r = 0; r < rows; ++r) {
    load_row(p.q, q_offset(p, b, h, i0 + r), p.D, p.dtype, t.q + r * p.D);
    load_row(bp.d_o, o_offset(p, b, h, i0 + r), Dv, p.dtype, t.d_o + r * Dv);
    t.lse[r] = st.lse[bh * st.lse_head_stride + i0 + r];
    t.di[r] = st.di[bh * p.T_q + i0 + r];
  }
}

void load_key_tile(const AttnParams& p, int b, int hk, std::int64_t j0, int keys, Tiles& t) {
  const int Dv = attn_dv(p);
  for (int c = 0; c < keys; ++c) {
    load_row(p.k, k_offset(p, b, hk, j0 + c), p.D, p.dtype, t.k + c * p.D);
    load_row(p.v, v_offset(p, b, hk, j0 + c), Dv, p.dtype, t.v + c * Dv);
  }
}

// P = exp(S - LSE) and dS = P o (dP - D_i) for the loaded (query, key) tile pair, masked
// entries and rows that see no key (LSE = -inf) giving 0; both rounded to the input dtype.
void tile_grads(const AttnParams& p, std::int64_t i0, int rows, std::int64_t j0, int keys,
                Tiles& t) {
  const int D = p.D;
  const int Dv = attn_dv(p);
  scores_tile(t.q, D, rows, t.k, D, keys, D, p.scale, t.p, kBc);
  scores_tile(t.d_o, Dv, rows, t.v, Dv, keys, Dv, 1.0f, t.ds, kBc);  // dP = dO V^T, over Dv
  for (int r = 0; r < rows; ++r) {
    float* pr = t.p + r * kBc;
    float* dsr = t.ds + r * kBc;
    // Columns [begin, end) of the tile are visible to the row.
    const int begin =
        static_cast<int>(std::clamp<std::int64_t>(first_visible_key(p, i0 + r) - j0, 0, keys));
    const int end =
        static_cast<int>(std::clamp<std::int64_t>(last_visible_key(p, i0 + r) + 1 - j0, 0, keys));
    const bool empty = t.lse[r] == kNegInf;
    for (int c = 0; c < keys; ++c) {
      const float pv = (c >= begin && c < end && !empty) ? std::exp(pr[c] - t.lse[r]) : 0.0f;
      pr[c] = round_to(pv, p.dtype);
      dsr[c] = round_to(pv * (dsr[c] - t.di[r]), p.dtype);
    }
  }
}

// dK and dV of keys [j0, j0 + keys) of (b, hk): every query head of the group, every query
// tile with a row that sees a key of the tile.
void key_tile(const AttnBwdParams& bp, const RowStats& st, int b, int hk, std::int64_t j0,
              Tiles& t) {
  const AttnParams& p = bp.fwd;
  const int D = p.D;
  const int Dv = attn_dv(p);
  const int keys = static_cast<int>(std::min<std::int64_t>(kBc, p.T_k - j0));
  const int group = p.H / p.H_kv;
  load_key_tile(p, b, hk, j0, keys, t);
  std::fill(t.acc_a, t.acc_a + keys * D, 0.0f);
  std::fill(t.acc_b, t.acc_b + keys * Dv, 0.0f);
  // Rows from the first that sees key j0 to the last that sees the tile's last key: query
  // tiles outside are skipped (above the causal diagonal, past a sliding window).
  const std::int64_t first_row = first_row_seeing(p, j0);
  const std::int64_t row_end = last_row_seeing(p, j0 + keys - 1) + 1;
  for (int h = hk * group; h < (hk + 1) * group; ++h) {
    for (std::int64_t i0 = first_row / kBr * kBr; i0 < row_end; i0 += kBr) {
      const int rows = static_cast<int>(std::min<std::int64_t>(kBr, p.T_q - i0));
      load_query_tile(bp, st, b, h, i0, rows, t);
      tile_grads(p, i0, rows, j0, keys, t);
      for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < keys; ++c) {
          t.p_t[c * kBr + r] = t.p[r * kBc + c];
          t.ds_t[c * kBr + r] = t.ds[r * kBc + c];
        }
      }
      accumulate_pv(t.p_t, kBr, keys, t.d_o, Dv, rows, Dv, t.acc_b, Dv);
      accumulate_pv(t.ds_t, kBr, keys, t.q, D, rows, D, t.acc_a, D);
    }
  }
  for (int c = 0; c < keys; ++c) {
    float* kr = t.acc_a + c * D;
    for (int d = 0; d < D; ++d) kr[d] *= p.scale;
    store_row(bp.d_k, k_offset(p, b, hk, j0 + c), D, p.dtype, kr);
    store_row(bp.d_v, v_offset(p, b, hk, j0 + c), Dv, p.dtype, t.acc_b + c * Dv);
  }
}

// dQ of query rows [i0, i0 + rows) of (b, h): every key tile a row of the tile sees.
void query_tile(const AttnBwdParams& bp, const RowStats& st, int b, int h, std::int64_t i0,
                Tiles& t) {
  const AttnParams& p = bp.fwd;
  const int D = p.D;
  const int rows = static_cast<int>(std::min<std::int64_t>(kBr, p.T_q - i0));
  const int hk = kv_head(p, h);
  load_query_tile(bp, st, b, h, i0, rows, t);
  std::fill(t.acc_a, t.acc_a + rows * D, 0.0f);
  const std::int64_t kv_begin = first_visible_key(p, i0) / kBc * kBc;
  const std::int64_t kv_end = last_visible_key(p, i0 + rows - 1) + 1;
  for (std::int64_t j0 = kv_begin; j0 < kv_end; j0 += kBc) {
    const int keys = static_cast<int>(std::min<std::int64_t>(kBc, p.T_k - j0));
    load_key_tile(p, b, hk, j0, keys, t);
    tile_grads(p, i0, rows, j0, keys, t);
    accumulate_pv(t.ds, kBc, rows, t.k, D, keys, D, t.acc_a, D);
  }
  for (int r = 0; r < rows; ++r) {
    float* qr = t.acc_a + r * D;
    for (int d = 0; d < D; ++d) qr[d] *= p.scale;
    store_row(bp.d_q, q_offset(p, b, h, i0 + r), D, p.dtype, qr);
  }
}

}  // namespace

std::int64_t flash_backward_scratch_floats(int D, int Dv) {
  return (tile_floats(D, Dv) + 15) / 16 * 16;
}

void flash_backward(const AttnBwdParams& bp, const float* lse, std::int64_t lse_head_stride,
                    float* di, float* scratch, std::int64_t stride, int threads) {
  const AttnParams& p = bp.fwd;
  row_sums_do_o(bp, di, threads);
  const RowStats st{lse, lse_head_stride, di};
  const std::int64_t k_tiles = (p.T_k + kBc - 1) / kBc;
  const std::int64_t kv_heads = static_cast<std::int64_t>(p.B) * p.H_kv;
  parallel_for(threads, k_tiles * kv_heads, [&](int th, std::int64_t item) {
    Tiles t = carve(scratch + th * stride, p.D, attn_dv(p));
    // Early key tiles are seen by the most query rows under causal masking: start them first.
    const std::int64_t bhk = item % kv_heads;
    key_tile(bp, st, static_cast<int>(bhk / p.H_kv), static_cast<int>(bhk % p.H_kv),
             item / kv_heads * kBc, t);
  });
  const std::int64_t q_tiles = (p.T_q + kBr - 1) / kBr;
  const std::int64_t heads = static_cast<std::int64_t>(p.B) * p.H;
  parallel_for(threads, q_tiles * heads, [&](int th, std::int64_t item) {
    Tiles t = carve(scratch + th * stride, p.D, attn_dv(p));
    // Late query tiles see the most keys under causal masking: start them first.
    const std::int64_t bh = item % heads;
    query_tile(bp, st, static_cast<int>(bh / p.H), static_cast<int>(bh % p.H),
               (q_tiles - 1 - item / heads) * kBr, t);
  });
}

}  // namespace fa2b::cpu
