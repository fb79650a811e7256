// SPDX-License-Identifier: Apache-2.0
// Tile shapes of the Hopper (sm_90a) forward, one line per head dim. Each warpgroup (4 warps)
// owns 64 query rows: the wgmma M of one instruction. K and V tiles are double-buffered in
// shared memory in the 128-byte swizzled layout wgmma reads.
#pragma once

#include "fa2/fa2_head_dims.h"

namespace fa2b {

// The head dims fa3 is compiled for (the dispatch, the support message and the tests read it).
using Fa3HeadDims = HeadDimList<64, 128, 256>;

constexpr bool fa3_head_dim_supported(int d) {
  return head_dim_listed(Fa3HeadDims{}, d);
}

template <int kD, int kBM, int kBN>
struct Fa3FwdTile {
  static constexpr int kHeadDim = kD;
  static constexpr int kBlockM = kBM;
  static constexpr int kBlockN = kBN;
  static constexpr int kWarpGroups = kBM / 64;
  static constexpr int kThreads = 128 * kWarpGroups;
  static constexpr int kQBytes = kBM * kD * 2;
  static constexpr int kKVBytes = kBN * kD * 2;  // one K or V tile
  // Q, two stages of K and V, and slack to align the dynamic shared memory base to 1024 bytes
  // (the swizzle atom).
  static constexpr int kSmemBytes = kQBytes + 4 * kKVBytes + 1024;
  static_assert(kBM % 64 == 0 && kBN % 16 == 0 && kD % 64 == 0, "wgmma tile shape");
};

template <int kD>
struct Fa3FwdTraits;
template <>
struct Fa3FwdTraits<64> : Fa3FwdTile<64, 128, 128> {};
template <>
struct Fa3FwdTraits<128> : Fa3FwdTile<128, 128, 128> {};
template <>
struct Fa3FwdTraits<256> : Fa3FwdTile<256, 128, 64> {};

}  // namespace fa2b
