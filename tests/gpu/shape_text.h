// SPDX-License-Identifier: Apache-2.0
// What the GPU kernel tests share about a test shape: its one-line description (for
// SCOPED_TRACE; forward and backward checks keep Shape structs of their own) and the sliding
// windows and lengths every window test sweeps.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "core/case.h"

namespace fa2b {

template <typename Shape>
std::string describe_shape(const Shape& s) {
  return std::string(to_string(s.dtype)) + " D=" + std::to_string(s.D) +
         (s.causal ? " causal" : "") +
         (s.window.bounded() ? " window [" + std::to_string(s.window.left) + ", " +
                                   std::to_string(s.window.right) + "]"
                             : "") +
         " B=" + std::to_string(s.B) + " H=" + std::to_string(s.H) + "/" + std::to_string(s.H_kv) +
         " Tq=" + std::to_string(s.T_q) + " Tk=" + std::to_string(s.T_k) + " " +
         std::string(to_string(s.layout));
}

// Widths 0, one-sided, two-sided, wider than every test length, and a window whose right reach
// exceeds its left; with lengths 1, 17, 1000 and T_q != T_k both ways (rows that see no key).
inline constexpr SlidingWindow kTestWindows[] = {{0, 0},   {3, -1},      {-1, 5},
                                                 {16, 16}, {2000, 2000}, {200, 100}};
inline constexpr std::pair<std::int64_t, std::int64_t> kWindowTestLengths[] = {
    {1, 1}, {17, 17}, {1000, 1000}, {17, 1000}, {1000, 17}, {1, 1000}};

}  // namespace fa2b
