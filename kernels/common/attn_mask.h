// SPDX-License-Identifier: Apache-2.0
// The mask rule (core/mask_rule.h) on a kernel's AttnParams: the visible keys of a row and the
// rows that see a key, as the CUDA kernels, the CPU target's backends and the float64 reference
// apply it, host and device.
#pragma once

#include <cstdint>

#include "common/attn_params.h"
#include "core/host_device.h"
#include "core/mask_rule.h"

namespace fa2b {

// The two bounds as distances from a row's diagonal (core/mask_rule.h).
struct MaskReach {
  int left;
  int right;
};

FA2B_HD MaskReach mask_reach(const AttnParams& p) {
  return mask_reach_of<MaskReach>(p);
}

// True when the kernels must mask at all: causal, or a window that cuts off some key of some
// row (a window at least as wide as the shape changes nothing and runs unmasked).
FA2B_HD bool attn_masked(const AttnParams& p) {
  const MaskReach m = mask_reach(p);
  return p.causal || m.left < p.T_k - 1 || m.right < p.T_q - 1;
}

// First key row i sees (0 when nothing is cut off on the left).
FA2B_HD std::int64_t first_visible_key(const AttnParams& p, std::int64_t i) {
  const std::int64_t first = i + mask_diag(p) - mask_reach(p).left;
  return first > 0 ? first : 0;
}

// Last key row i sees; below first_visible_key (negative) when the row sees none.
FA2B_HD std::int64_t last_visible_key(const AttnParams& p, std::int64_t i) {
  const std::int64_t last = i + mask_diag(p) + mask_reach(p).right;
  return last < p.T_k - 1 ? last : p.T_k - 1;
}

// First query row that sees key j (0 when every row up to the last one does).
FA2B_HD std::int64_t first_row_seeing(const AttnParams& p, std::int64_t j) {
  const std::int64_t first = j - mask_diag(p) - mask_reach(p).right;
  return first > 0 ? first : 0;
}

// Last query row that sees key j; below first_row_seeing when no row does.
FA2B_HD std::int64_t last_row_seeing(const AttnParams& p, std::int64_t j) {
  const std::int64_t last = j - mask_diag(p) + mask_reach(p).left;
  return last < p.T_q - 1 ? last : p.T_q - 1;
}

// Whether row i sees key j.
FA2B_HD bool key_visible(const AttnParams& p, std::int64_t i, std::int64_t j) {
  return j >= first_visible_key(p, i) && j <= last_visible_key(p, i);
}

}  // namespace fa2b
