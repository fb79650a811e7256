// SPDX-License-Identifier: Apache-2.0
// Tile shapes of the Hopper (sm_90a) backward. One CTA per (key block, KV head, batch) of two
// warpgroups, each owning 64 keys: the wgmma M of Sᵀ = K·Qᵀ, dPᵀ = V·dOᵀ, dV += Pᵀ·dO and
// dK += dSᵀ·Q, whose accumulators (dK, dV: 64 × D per warpgroup) stay in registers across the
// query blocks. dQ = dS·K is split over the warpgroups by columns (D/2 each).
#pragma once

#include "fa3/fa3_traits.h"

namespace fa2b {

// The head dims the fa3 backward is compiled for: at D = 256 the dK/dV accumulators of a
// 64-key warpgroup alone would take every register.
using Fa3BwdHeadDims = HeadDimList<64, 128>;

constexpr bool fa3_bwd_head_dim_supported(int d) {
  return head_dim_listed(Fa3BwdHeadDims{}, d);
}

// Each warpgroup leaves its dQ slice in shared memory (fp32, double-buffered) and one of its
// threads adds it to the global accumulator through the copy engine.
template <int kD>
struct Fa3BwdTraits {
  static constexpr int kHeadDim = kD;
  static constexpr int kBlockM = 64;   // queries per block
  static constexpr int kBlockN = 128;  // keys per CTA
  static constexpr int kThreads = 256;
  static constexpr int kKVBytes = kBlockN * kD * 2;       // K or V
  static constexpr int kQBytes = kBlockM * kD * 2;        // one stage of Q or dO
  static constexpr int kDSBytes = kBlockN * kBlockM * 2;  // dSᵀ
  static constexpr int kStatBytes = 2 * 2 * kBlockM * 4;  // LSE and D_i, two stages
  // dQ of one warpgroup (64 query rows x D/2 fp32 columns), in boxes of 32 columns (the copy
  // engine's 128-byte swizzle span); two per warpgroup (double buffer).
  static constexpr int kDQCols = kD / 2;
  static constexpr int kDQBoxBytes = kBlockM * 32 * 4;
  static constexpr int kDQSliceBytes = kBlockM * kDQCols * 4;
  static constexpr int kDQBytes = 2 * 2 * kDQSliceBytes;
  // Offsets from the 1024-aligned base: K, V, Q stages, dO stages, dSᵀ, dQ buffers, LSE/D_i.
  static constexpr int kQOffset = 2 * kKVBytes;
  static constexpr int kDOOffset = kQOffset + 2 * kQBytes;
  static constexpr int kDSOffset = kDOOffset + 2 * kQBytes;
  static constexpr int kDQOffset = kDSOffset + kDSBytes;
  static constexpr int kStatOffset = kDQOffset + kDQBytes;
  static constexpr int kSmemBytes = kStatOffset + kStatBytes + 1024;
  static_assert(kBlockM == 64, "dSᵀ is one 64-column block of the swizzled layout");
  static_assert(kDQCols % 32 == 0, "dQ slices in whole 32-column boxes");
  static_assert(kDQOffset % 1024 == 0 && kDQSliceBytes % 1024 == 0, "swizzle atoms aligned");
  static_assert(kSmemBytes <= 227 * 1024, "shared memory of one sm_90 block");
};

}  // namespace fa2b
