// SPDX-License-Identifier: Apache-2.0
// The forward's grid class (which of fa2_traits.h's two tables a launch takes), as a pure host
// function of the shape and the SM count so a unit test checks it without a GPU.
#pragma once

#include <cstdint>

namespace fa2b {

// The grid class of a forward launch with `sms` multiprocessors: small when few 128-row query
// tiles would be resident (B * H * ceil(T_q / 128) < 4 * SMs), and always for T_q <= 64 rows
// (decode steps), where the large-grid tile's extra query rows are pure waste: at B = 64,
// H = 32, T_q = 1 its 128-row tile spent the time of 128 rows per key block and reached
// 3.1 TB/s where the 64-row tile streams K and V at 4.6 TB/s.
inline bool fa2_small_grid_for(std::int64_t B, std::int64_t H, std::int64_t T_q, int sms) {
  if (T_q <= 64) return true;
  const std::int64_t tiles128 = B * H * ((T_q + 127) / 128);
  return tiles128 < 4LL * sms;
}

}  // namespace fa2b
