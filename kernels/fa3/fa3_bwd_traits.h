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
  static constexpr int kSmemBytes = 2 * kKVBytes + 4 * kQBytes + kDSBytes + kStatBytes + 1024;
  static_assert(kBlockM == 64, "dSᵀ is one 64-column block of the swizzled layout");
};

}  // namespace fa2b
