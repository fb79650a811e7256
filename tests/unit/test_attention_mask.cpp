// SPDX-License-Identifier: Apache-2.0
// The mask rule (causal and sliding windows, bottom-right aligned) against its definition,
// brute force (the rule: core/mask_rule.h): the kernels' helpers (common/attn_mask.h, which the
// CUDA kernels, the CPU target and naive use), the shape algebra's pair count
// (core/attention_mask.h), the float64 reference's visible keys, the params a case becomes, the
// FLOP count and the case ids.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "backends/shape_params.h"
#include "common/attn_mask.h"
#include "core/attention_mask.h"
#include "core/shape_algebra.h"
#include "verify/reference.h"

namespace fa2b {
namespace {

// The rule as the brief states it: row i sees key j iff j >= i + diag - left (left >= 0) and
// j <= i + diag + right (right >= 0), diag = T_k - T_q; causal is right = 0, intersected.
bool visible_by_definition(std::int64_t T_q, std::int64_t T_k, bool causal, SlidingWindow w,
                           std::int64_t i, std::int64_t j) {
  const std::int64_t diag = T_k - T_q;
  if (w.left >= 0 && j < i + diag - w.left) return false;
  if (w.right >= 0 && j > i + diag + w.right) return false;
  if (causal && j > i + diag) return false;
  return true;
}

Case make(std::int64_t T_q, std::int64_t T_k, bool causal, SlidingWindow w) {
  Case c;
  c.backend = "cpu-flash";
  c.B = 2;
  c.H = 3;
  c.H_kv = 3;
  c.T_q = T_q;
  c.T_k = T_k;
  c.D = 64;
  c.causal = causal;
  c.window = w;
  return c;
}

struct Shape {
  std::int64_t T_q, T_k;
};
const Shape kShapes[] = {{1, 1}, {1, 17}, {17, 1}, {17, 17}, {5, 40}, {40, 5}, {64, 64}, {33, 70}};
const SlidingWindow kWindows[] = {{-1, -1}, {0, 0},  {3, -1},    {-1, 5}, {16, 16},
                                  {0, -1},  {-1, 0}, {100, 100}, {7, 2},  {1000000, 3}};

TEST(AttentionMask, KernelHelpersFollowTheDefinition) {
  for (const Shape& s : kShapes) {
    for (const SlidingWindow& w : kWindows) {
      for (bool causal : {false, true}) {
        const Case c = make(s.T_q, s.T_k, causal, w);
        const AttnParams p = shape_params(c);
        SCOPED_TRACE(c.shape_key());
        for (std::int64_t i = 0; i < s.T_q; ++i) {
          std::int64_t first = -1, last = -2;  // by definition; last < first when none
          for (std::int64_t j = 0; j < s.T_k; ++j) {
            const bool v = visible_by_definition(s.T_q, s.T_k, causal, w, i, j);
            ASSERT_EQ(key_visible(p, i, j), v) << "row " << i << " key " << j;
            if (v && first < 0) first = j;
            if (v) last = j;
          }
          if (first >= 0) {
            // The visible keys are one contiguous range.
            EXPECT_EQ(first_visible_key(p, i), first) << "row " << i;
            EXPECT_EQ(last_visible_key(p, i), last) << "row " << i;
          } else {
            EXPECT_LT(last_visible_key(p, i), first_visible_key(p, i)) << "row " << i;
          }
          const VisibleKeys ref = visible_keys(c, i);  // the float64 reference's
          EXPECT_EQ(ref.count(), first >= 0 ? last - first + 1 : 0) << "row " << i;
          if (first >= 0) {
            EXPECT_EQ(ref.first, first) << "row " << i;
          }
        }
        for (std::int64_t j = 0; j < s.T_k; ++j) {
          std::int64_t first = -1, last = -2;
          for (std::int64_t i = 0; i < s.T_q; ++i) {
            if (!visible_by_definition(s.T_q, s.T_k, causal, w, i, j)) continue;
            if (first < 0) first = i;
            last = i;
          }
          if (first >= 0) {
            EXPECT_EQ(first_row_seeing(p, j), first) << "key " << j;
            EXPECT_EQ(last_row_seeing(p, j), last) << "key " << j;
          } else {
            EXPECT_LT(last_row_seeing(p, j), first_row_seeing(p, j)) << "key " << j;
          }
        }
      }
    }
  }
}

TEST(AttentionMask, VisiblePairsCountsTheDefinition) {
  for (const Shape& s : kShapes) {
    for (const SlidingWindow& w : kWindows) {
      for (bool causal : {false, true}) {
        const Case c = make(s.T_q, s.T_k, causal, w);
        std::int64_t pairs = 0;
        for (std::int64_t i = 0; i < s.T_q; ++i)
          for (std::int64_t j = 0; j < s.T_k; ++j)
            pairs += visible_by_definition(s.T_q, s.T_k, causal, w, i, j);
        EXPECT_EQ(visible_pairs(c), pairs) << c.shape_key();
      }
    }
  }
}

TEST(AttentionMask, VisiblePairsInClosedFormForLongSequences) {
  // T far beyond a loop over rows: a [w, w] window sees 2w + 1 keys away from the edges.
  const std::int64_t T = std::int64_t{1} << 24, w = 4096;
  Case c = make(T, T, false, {w, w});
  const std::int64_t edges = w * (w + 1);  // the keys the first and last w rows miss
  EXPECT_EQ(visible_pairs(c), T * (2 * w + 1) - edges);
  c.window = {};
  EXPECT_EQ(visible_pairs(c), T * T);
  c.causal = true;
  EXPECT_EQ(visible_pairs(c), T * (T + 1) / 2);
}

TEST(AttentionMask, ReachClampsUnboundedSidesAndCausal) {
  Case c = make(100, 300, false, {});
  WindowReach m = window_reach(c);
  EXPECT_EQ(m.left, 300);   // unbounded: T_k
  EXPECT_EQ(m.right, 100);  // unbounded: T_q
  c.window = {5000, 7};
  m = window_reach(c);
  EXPECT_EQ(m.left, 300);  // wider than the shape: clamped
  EXPECT_EQ(m.right, 7);
  c.causal = true;
  EXPECT_EQ(window_reach(c).right, 0);  // causal intersects: right 0 whatever the window says

  // The kernels' reach from the params agrees.
  const AttnParams p = shape_params(c);
  EXPECT_EQ(mask_reach(p).left, 300);
  EXPECT_EQ(mask_reach(p).right, 0);
}

TEST(AttentionMask, ParamsDropBoundsTheShapeNeverReaches) {
  Case c = make(100, 300, false, {299, 99});
  AttnParams p = shape_params(c);
  EXPECT_EQ(p.window_left, 299);
  EXPECT_EQ(p.window_right, 99);
  // Neither bound cuts a key off (left >= T_k - 1, right >= T_q - 1): the unmasked kernels.
  EXPECT_FALSE(attn_masked(p));
  c.window = {300, std::int64_t{1} << 40};  // beyond int: no bound
  p = shape_params(c);
  EXPECT_EQ(p.window_left, -1);
  EXPECT_EQ(p.window_right, -1);
  EXPECT_FALSE(attn_masked(p));
  c.window = {298, -1};
  EXPECT_TRUE(attn_masked(shape_params(c)));
  c.window = {-1, 98};
  EXPECT_TRUE(attn_masked(shape_params(c)));
  c.window = {};
  c.causal = true;
  EXPECT_TRUE(attn_masked(shape_params(c)));  // causal always takes the masked path
}

TEST(AttentionMask, FlopsCountVisiblePairsUnderAWindow) {
  Case c = make(1000, 1000, false, {});
  const double full = 4.0 * c.B * c.H * c.D * 1000.0 * 1000.0;
  EXPECT_DOUBLE_EQ(attention_flops(c), full);
  c.causal = true;  // flash-attention's convention: half, not the exact T(T+1)/2 pairs
  EXPECT_DOUBLE_EQ(attention_flops(c), full / 2);
  c.causal = false;
  c.window = {16, 16};
  EXPECT_DOUBLE_EQ(attention_flops(c),
                   4.0 * c.B * c.H * c.D * static_cast<double>(visible_pairs(c)));
  EXPECT_DOUBLE_EQ(static_cast<double>(visible_pairs(c)), 1000.0 * 33 - 16 * 17);
  c.window = {0, 0};  // the diagonal alone
  EXPECT_DOUBLE_EQ(attention_flops(c), 4.0 * c.B * c.H * c.D * 1000.0);
  c.mode = Mode::fwd_bwd;
  EXPECT_DOUBLE_EQ(case_flops(c), 3.5 * 4.0 * c.B * c.H * c.D * 1000.0);
  EXPECT_EQ(plan_metric_value(c, "flops").value(), case_flops(c));
}

TEST(AttentionMask, IdsTagTheBoundedSides) {
  Case c = make(17, 17, false, {});
  EXPECT_EQ(c.id(), "cpu-flash/B2-H3-T17-D64/fp16/full");  // no window: ids as before
  c.window = {16, 16};
  EXPECT_EQ(c.id(), "cpu-flash/B2-H3-T17-D64/fp16/full/wl16-wr16");
  c.window = {3, -1};
  c.causal = true;
  c.layout = Layout::bshd;
  c.mode = Mode::bwd;
  EXPECT_EQ(c.id(), "cpu-flash/B2-H3-T17-D64/fp16/causal/wl3/bshd/bwd");
  c.window = {-1, 5};
  c.causal = false;
  EXPECT_EQ(c.shape_key(), "B2-H3-T17-D64/fp16/full/wr5/bshd/bwd");
  EXPECT_EQ(window_text(c.window), "[-1, 5]");
}

}  // namespace
}  // namespace fa2b
