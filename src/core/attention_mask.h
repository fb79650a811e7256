// SPDX-License-Identifier: Apache-2.0
// A case's attention mask in the shape algebra's terms: how far a query row reaches from its
// bottom-right diagonal (causal and the sliding window intersected; the rule is
// core/mask_rule.h's, the one the kernels apply) and how many (query row, key) pairs of one
// head are visible, which the FLOP count of a windowed case is made of.
#pragma once

#include <cstdint>
#include <string>

#include "core/case.h"
#include "core/mask_rule.h"

namespace fa2b {

// Row i (0-based) sees keys i + diag - left .. i + diag + right, within 0 .. T_k - 1, where
// diag = T_k - T_q (core/mask_rule.h).
struct WindowReach {
  std::int64_t left = 0, right = 0;
};
WindowReach window_reach(const Case& c);

// Visible (query row, key) pairs of one (batch, head): T_q * T_k without a mask, the exact
// count under causal masking and windows (rows that see no key count 0).
std::int64_t visible_pairs(const Case& c);

// "[128, -1]", as configs write a window.
std::string window_text(const SlidingWindow& w);

}  // namespace fa2b
