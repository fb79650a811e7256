// SPDX-License-Identifier: Apache-2.0
// Which keys a query row sees: causal masking and the sliding window as one rule, the one
// definition the CUDA kernels (kernels/common/attn_mask.h on AttnParams; fa3's causal tiles),
// the CPU target's backends, the float64 reference and the shape algebra's FLOP count
// (core/attention_mask.h on a Case) all apply, host and device.
//
// Bottom-right alignment (flash-attention's, for causal and window_size alike): with
// diag = T_k - T_q, row i sees key j when
//   j >= i + diag - left    (left >= 0; left = -1: no bound)
//   j <= i + diag + right   (right >= 0; right = -1: no bound; causal: right = 0)
// and 0 <= j < T_k. Causal and a window intersect. The visible keys of a row are one
// contiguous range, empty only when i + diag + right < 0 (the top rows when T_q > T_k); such a
// row outputs zeros and LSE = -inf.
#pragma once

#include "core/host_device.h"

namespace fa2b {

// The rule's pieces take the shape itself (anything with the fields T_q, T_k, causal,
// window_left, window_right: a kernel's AttnParams read in place, fa3's tile, a Case's view),
// not copies of its fields: copied into arguments, the same arithmetic cost the fa2 kernels
// registers and instructions (their SASS is identical only this way).

// The offset of the diagonal the mask is aligned to: row i's causal limit is key i + diag.
template <typename Shape>
FA2B_HD auto mask_diag(const Shape& s) -> decltype(s.T_k - s.T_q) {
  return s.T_k - s.T_q;
}

// The two bounds as distances from a row's diagonal, into `Reach` (a struct of `left` and
// `right`: int in the kernels, int64 in the shape algebra). An unbounded side gets a reach no
// pair exceeds (left: T_k, right: T_q) and a wider bound is clamped to it, so kernels compare
// without branching on -1 and row + diag + reach stays within the integer type for any valid
// shape.
template <typename Reach, typename Shape>
FA2B_HD Reach mask_reach_of(const Shape& s) {
  Reach m;
  m.left = s.window_left >= 0 && s.window_left < s.T_k ? s.window_left : s.T_k;
  m.right = s.causal ? 0 : s.window_right >= 0 && s.window_right < s.T_q ? s.window_right : s.T_q;
  return m;
}

}  // namespace fa2b
