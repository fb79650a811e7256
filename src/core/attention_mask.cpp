// SPDX-License-Identifier: Apache-2.0
#include "core/attention_mask.h"

#include <fmt/format.h>

#include <algorithm>

namespace fa2b {
namespace {

// The sum of clamp(x, 0, cap) over the n integers x = a .. a + n - 1, in closed form: T can be
// far too long for a loop over rows in `plan`.
std::int64_t clamped_sum(std::int64_t a, std::int64_t n, std::int64_t cap) {
  const std::int64_t last = a + n - 1;
  std::int64_t total = 0;
  // 0 < x < cap contributes x: an arithmetic series. Its two ends have the parity of the count
  // minus one, so one of count and (first + last) is even and the halving is exact.
  const std::int64_t lo = std::max<std::int64_t>(a, 1), hi = std::min(last, cap - 1);
  if (lo <= hi) {
    const std::int64_t count = hi - lo + 1;
    total += count % 2 == 0 ? count / 2 * (lo + hi) : (lo + hi) / 2 * count;
  }
  // x >= cap contributes cap.
  const std::int64_t from = std::max(a, cap);
  if (from <= last) total += (last - from + 1) * cap;
  return total;
}

// Pairs (i, j), 0 <= i < T_q, 0 <= j < T_k, with j - i <= c: row i has clamp(i + c + 1, 0, T_k).
std::int64_t pairs_up_to(const Case& c, std::int64_t offset) {
  return clamped_sum(offset + 1, c.T_q, c.T_k);
}

}  // namespace

WindowReach window_reach(const Case& c) {
  struct MaskShape {
    std::int64_t T_q, T_k;
    bool causal;
    std::int64_t window_left, window_right;
  };
  return mask_reach_of<WindowReach>(
      MaskShape{c.T_q, c.T_k, c.causal, c.window.left, c.window.right});
}

std::int64_t visible_pairs(const Case& c) {
  // Row i sees j exactly when diag - left <= j - i <= diag + right.
  const WindowReach m = window_reach(c);
  const std::int64_t diag = mask_diag(c);
  return pairs_up_to(c, diag + m.right) - pairs_up_to(c, diag - m.left - 1);
}

std::string window_text(const SlidingWindow& w) {
  return fmt::format("[{}, {}]", w.left, w.right);
}

}  // namespace fa2b
