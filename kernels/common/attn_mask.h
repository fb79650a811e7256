// SPDX-License-Identifier: Apache-2.0
// Which keys a query row sees: causal masking and the sliding window as one rule, shared by
// the CUDA kernels, the CPU target's backends and the float64 reference, host and device.
//
// Bottom-right alignment (flash-attention's, for causal and window_size alike): with
// diag = T_k - T_q, row i sees key j when
//   j >= i + diag - left    (left >= 0; left = -1: no bound)
//   j <= i + diag + right   (right >= 0; right = -1: no bound; causal: right = 0)
// and 0 <= j < T_k. Causal and a window intersect. The visible keys of a row are one
// contiguous range, empty only when i + diag + right < 0 (the top rows when T_q > T_k); such a
// row outputs zeros and LSE = -inf.
#pragma once

#include <cstdint>

#include "common/attn_params.h"
#include "common/host_device.h"

namespace fa2b {

// The two bounds as distances from a row's diagonal. An unbounded side gets a reach no pair
// exceeds (left: T_k, right: T_q) and a wider bound is clamped to it, so kernels compare
// without branching on -1 and row + diag + reach stays within int for any valid shape.
struct MaskReach {
  int left;
  int right;
};

FA2B_HD MaskReach mask_reach(const AttnParams& p) {
  MaskReach m;
  m.left = p.window_left >= 0 && p.window_left < p.T_k ? p.window_left : p.T_k;
  m.right = p.causal ? 0 : p.window_right >= 0 && p.window_right < p.T_q ? p.window_right : p.T_q;
  return m;
}

// True when the kernels must mask at all: causal, or a window that cuts off some key of some
// row (a window at least as wide as the shape changes nothing and runs unmasked).
FA2B_HD bool attn_masked(const AttnParams& p) {
  const MaskReach m = mask_reach(p);
  return p.causal || m.left < p.T_k - 1 || m.right < p.T_q - 1;
}

// First key row i sees (0 when nothing is cut off on the left).
FA2B_HD std::int64_t first_visible_key(const AttnParams& p, std::int64_t i) {
  const std::int64_t first = i + (p.T_k - p.T_q) - mask_reach(p).left;
  return first > 0 ? first : 0;
}

// Last key row i sees; below first_visible_key (negative) when the row sees none.
FA2B_HD std::int64_t last_visible_key(const AttnParams& p, std::int64_t i) {
  const std::int64_t last = i + (p.T_k - p.T_q) + mask_reach(p).right;
  return last < p.T_k - 1 ? last : p.T_k - 1;
}

// First query row that sees key j (0 when every row up to the last one does).
FA2B_HD std::int64_t first_row_seeing(const AttnParams& p, std::int64_t j) {
  const std::int64_t first = j - (p.T_k - p.T_q) - mask_reach(p).right;
  return first > 0 ? first : 0;
}

// Last query row that sees key j; below first_row_seeing when no row does.
FA2B_HD std::int64_t last_row_seeing(const AttnParams& p, std::int64_t j) {
  const std::int64_t last = j - (p.T_k - p.T_q) + mask_reach(p).left;
  return last < p.T_q - 1 ? last : p.T_q - 1;
}

// Whether row i sees key j.
FA2B_HD bool key_visible(const AttnParams& p, std::int64_t i, std::int64_t j) {
  return j >= first_visible_key(p, i) && j <= last_visible_key(p, i);
}

}  // namespace fa2b
