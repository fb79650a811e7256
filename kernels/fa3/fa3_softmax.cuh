// SPDX-License-Identifier: Apache-2.0
// The online softmax of one warpgroup's score tile, on the wgmma accumulator layout: thread
// element i of an m64nN accumulator is row (lane / 4) + 8 (i / 2 % 2) of its warp's 16 rows,
// column 8 (i / 4) + 2 (lane % 4) + i % 2, so each thread holds two rows and the four lanes of
// a quad share them (reductions: two xor-shuffles).
#pragma once

#include <cstdint>

#include "common/fast_exp2.cuh"
#include "common/mma.cuh"

namespace fa2b {
namespace fa3 {

struct RowState {
  float max[2] = {-INFINITY, -INFINITY};  // raw scores (unscaled); -inf until a key is seen
  float sum[2] = {0.f, 0.f};              // this thread's partial sums (quad-reduced at the end)
};

// Folds a new score tile s (kS accumulators) into the running state: new row maxima, s
// overwritten with exp2(scaled s - max), the sums rescaled and extended. The output
// accumulators are not touched (a P·V wgmma may still be writing them): corr[r] is the factor
// they need once it is done (rescale_rows).
template <int kS>
__device__ __forceinline__ void online_softmax(float (&s)[kS], RowState& st, float scale_log2,
                                               float (&corr)[2]) {
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    float mx = st.max[r];
#pragma unroll
    for (int j = 0; j < kS / 4; ++j) mx = fmaxf(mx, fmaxf(s[4 * j + 2 * r], s[4 * j + 2 * r + 1]));
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
    // A row that has seen only masked keys keeps max -inf; subtracting 0 then keeps its
    // probabilities exactly 0 (not NaN) and its rescale factor multiplies zeros.
    const float m_scaled = mx == -INFINITY ? 0.f : mx * scale_log2;
    corr[r] = fast_exp2(st.max[r] * scale_log2 - m_scaled);
    st.max[r] = mx;
    float sum = 0.f;
#pragma unroll
    for (int j = 0; j < kS / 4; ++j) {
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const float pv = fast_exp2(fmaf(s[4 * j + 2 * r + e], scale_log2, -m_scaled));
        s[4 * j + 2 * r + e] = pv;
        sum += pv;
      }
    }
    st.sum[r] = st.sum[r] * corr[r] + sum;
  }
}

// o (an m64 accumulator of the same rows) *= corr per row.
template <int kO>
__device__ __forceinline__ void rescale_rows(float (&o)[kO], const float (&corr)[2]) {
#pragma unroll
  for (int j = 0; j < kO / 4; ++j) {
#pragma unroll
    for (int e = 0; e < 4; ++e) o[4 * j + e] *= corr[e >> 1];
  }
}

// The probabilities of key columns [16 kk, 16 kk + 16) as the register A operand of the next
// wgmma (per warp the mma.sync m16n8k16 A layout, which the accumulator layout maps onto).
template <typename T, int kS>
__device__ __forceinline__ void pack_a_fragment(const float (&s)[kS], int kk,
                                                std::uint32_t (&a)[4]) {
  a[0] = pack2<T>(s[8 * kk + 0], s[8 * kk + 1]);
  a[1] = pack2<T>(s[8 * kk + 2], s[8 * kk + 3]);
  a[2] = pack2<T>(s[8 * kk + 4], s[8 * kk + 5]);
  a[3] = pack2<T>(s[8 * kk + 6], s[8 * kk + 7]);
}

}  // namespace fa3
}  // namespace fa2b
