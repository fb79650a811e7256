// SPDX-License-Identifier: Apache-2.0
// The forward's mask: which key tiles need one, and -inf on the scores a row may not see (the
// T_k tail, and with kMasked the causal diagonal and a sliding window, common/attn_mask.h).
// Key columns count from the CTA's first visible key tile (fa2_fwd_kernel.cuh), so t_k and
// diag are relative to it.
#pragma once

#include <cstdint>

#include "common/attn_mask.h"
#include "common/attn_params.h"
#include "common/unhoisted_index.cuh"

namespace fa2b {
namespace fa2 {

// Only the T_k tail tile and tiles crossing a bound of the mask (the causal diagonal or a
// window's right edge, a window's left edge) pay for the mask.
template <typename Traits, bool kMasked>
__device__ __forceinline__ bool tile_needs_mask(const AttnParams& p, int col0, int t_k, int m0,
                                                int diag) {
  constexpr int kBM = Traits::kBlockM;
  constexpr int kBN = Traits::kBlockN;
  bool need_mask = col0 + kBN > t_k;
  if (kMasked) {
    const MaskReach reach = mask_reach(p);
    need_mask = need_mask || col0 + kBN - 1 > m0 + diag + reach.right ||
                col0 < m0 + kBM - 1 + diag - reach.left;
  }
  return need_mask;
}

// s: one warp's score tile (kMT 16-row strips x kNT 8-key tiles, mma accumulator layout) of the
// key tile starting at col0.
// kPacked: GQA packing's tile (fa2_fwd_kernel.cuh, m0 = 0), whose row r is query row r % T_q
// of its head, so each row's diagonal is computed from that rather than from r.
template <typename Traits, bool kMasked, bool kPacked = false, int kMT, int kNT>
__device__ __forceinline__ void mask_scores(float (&s)[kMT][kNT][4], const AttnParams& p, int col0,
                                            int t_k, int m0, int diag) {
  // The lane's geometry is re-read here rather than reused: values derived from it before the
  // loop are loop-invariant, and the compiler would keep one per (m-tile, row half) live across
  // the whole loop, which the 255-register tiles cannot afford.
  const int tid_now = thread_index_unhoisted();
  const int lane_now = tid_now & 31;
  // Mask element (mi, j, e) when its column offset j*8 + (e&1), relative to the lane's first
  // column, reaches the T_k limit or lies outside the row's window: past its diagonal plus the
  // right reach, or before its diagonal minus the left reach.
  const int col_lane = col0 + 2 * (lane_now & 3);
  const int tk_limit = t_k - col_lane;
  const int diag_limit = m0 + diag + (tid_now >> 5) * kMT * 16 + (lane_now >> 2) - col_lane;
  const MaskReach reach = mask_reach(p);
  if constexpr (kPacked) {
    const int lane_row = (tid_now >> 5) * kMT * 16 + (lane_now >> 2);
#pragma unroll
    for (int mi = 0; mi < kMT; ++mi) {
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int row_limit = (lane_row + mi * 16 + 8 * half) % p.T_q + diag - col_lane;
#pragma unroll
        for (int j = 0; j < kNT; ++j) {
#pragma unroll
          for (int e = 2 * half; e < 2 * half + 2; ++e) {
            const int dc = j * 8 + (e & 1);
            if (dc >= tk_limit ||
                (kMasked && (dc > row_limit + reach.right || dc < row_limit - reach.left))) {
              s[mi][j][e] = -INFINITY;
            }
          }
        }
      }
    }
  } else {
#pragma unroll
    for (int mi = 0; mi < kMT; ++mi) {
#pragma unroll
      for (int j = 0; j < kNT; ++j) {
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int dc = j * 8 + (e & 1);
          const int dr = mi * 16 + (e >= 2 ? 8 : 0);
          if (dc >= tk_limit || (kMasked && (dc > diag_limit + reach.right + dr ||
                                             dc < diag_limit - reach.left + dr))) {
            s[mi][j][e] = -INFINITY;
          }
        }
      }
    }
  }
}

}  // namespace fa2
}  // namespace fa2b
