// SPDX-License-Identifier: Apache-2.0
// The forward's online softmax on one warp's score tile, in the log2 domain, on the mma
// accumulator layout (each lane holds two rows of each 16-row strip; the quad of 4 lanes
// sharing a row reduces with two xor-shuffles). Row maxima are kept unscaled; the running sums
// are the lane's partial sums (quad-reduced in the epilogue).
#pragma once

#include "common/fast_exp2.cuh"

namespace fa2b {
namespace fa2 {

// Folds the score tile s into the running maxima/sums: the new maxima, the output rows rescaled
// when a maximum grew (with Traits::kLazyRescale only when some row of the warp outgrew its
// maximum by the lazy margin: the branch is warp-uniform), then s overwritten with the
// probabilities exp2(scaled s - max) and the sums extended by them.
template <typename Traits, int kMT, int kNT, int kDT>
__device__ __forceinline__ void online_softmax(float (&s)[kMT][kNT][4], float (&row_m)[kMT][2],
                                               float (&row_l)[kMT][2], float (&acc_o)[kMT][kDT][4],
                                               float scale_log2) {
  float tile_m[kMT][2];
#pragma unroll
  for (int mi = 0; mi < kMT; ++mi) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float mx = row_m[mi][r];
#pragma unroll
      for (int j = 0; j < kNT; ++j) mx = fmaxf(mx, fmaxf(s[mi][j][2 * r], s[mi][j][2 * r + 1]));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
      tile_m[mi][r] = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
    }
  }
  bool rescale = !Traits::kLazyRescale;
  if constexpr (Traits::kLazyRescale) {
    bool grew = false;
#pragma unroll
    for (int mi = 0; mi < kMT; ++mi) {
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        grew |= tile_m[mi][r] * scale_log2 > row_m[mi][r] * scale_log2 + Traits::kLazyRescaleLog2;
      }
    }
    rescale = __any_sync(0xffffffffu, grew);
  }
  if (rescale) {
#pragma unroll
    for (int mi = 0; mi < kMT; ++mi) {
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        // A row that has seen only masked keys keeps max -inf (corr then multiplies zeros).
        const float m_new = tile_m[mi][r] == -INFINITY ? 0.f : tile_m[mi][r] * scale_log2;
        const float corr = fast_exp2(row_m[mi][r] * scale_log2 - m_new);
        row_m[mi][r] = tile_m[mi][r];
        row_l[mi][r] *= corr;
#pragma unroll
        for (int j = 0; j < kDT; ++j) {
          acc_o[mi][j][2 * r] *= corr;
          acc_o[mi][j][2 * r + 1] *= corr;
        }
      }
    }
  }
#pragma unroll
  for (int mi = 0; mi < kMT; ++mi) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      // Subtracting 0 for a fully masked row keeps its probabilities exactly 0, not NaN.
      const float m_scaled = row_m[mi][r] == -INFINITY ? 0.f : row_m[mi][r] * scale_log2;
      float sum = 0.f;
#pragma unroll
      for (int j = 0; j < kNT; ++j) {
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const float pv = fast_exp2(fmaf(s[mi][j][2 * r + e], scale_log2, -m_scaled));
          s[mi][j][2 * r + e] = pv;
          sum += pv;
        }
      }
      row_l[mi][r] += sum;
    }
  }
}

}  // namespace fa2
}  // namespace fa2b
