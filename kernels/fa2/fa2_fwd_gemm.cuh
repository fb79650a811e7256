// SPDX-License-Identifier: Apache-2.0
// The forward's two GEMM steps on one warp's kMT 16-row strips, mma.sync m16n8k16 fed by
// ldmatrix from the swizzled tiles (per-lane bases: LdsmBases), kv_off selecting the K/V stage:
// S = Q·Kᵀ for a key tile, and O += P·V with P straight from the score registers as the A
// operand (the accumulator layout of S is the A layout of the next mma).
#pragma once

#include <cstdint>

#include "common/mma.cuh"
#include "common/tile_io.cuh"

namespace fa2b {
namespace fa2 {

// s = Q·Kᵀ (overwritten). Q's first Traits::kQRegSteps k-steps come from q_frag (loaded once
// per CTA), the rest from shared memory.
template <typename Traits, typename T, int kQFrags>
__device__ __forceinline__ void qk_scores(
    float (&s)[Traits::kMTiles][Traits::kBlockN / 8][4],
    const std::uint32_t (&q_frag)[Traits::kMTiles][kQFrags][4],
    const LdsmBases<Traits::kPitch>& q_ld, const LdsmBases<Traits::kPitch>& k_ld,
    std::uint32_t kv_off) {
  constexpr int kMT = Traits::kMTiles;
  constexpr int kNT = Traits::kBlockN / 8;
  constexpr int kQRegs = Traits::kQRegSteps;
#pragma unroll
  for (int mi = 0; mi < kMT; ++mi) {
#pragma unroll
    for (int j = 0; j < kNT; ++j) {
#pragma unroll
      for (int e = 0; e < 4; ++e) s[mi][j][e] = 0.f;
    }
  }
#pragma unroll
  for (int ks = 0; ks < Traits::kHeadDim / 16; ++ks) {
    std::uint32_t qa[kMT][4];
#pragma unroll
    for (int mi = 0; mi < kMT; ++mi) {
      if (ks < kQRegs) {  // resolved at compile time once the ks loop is unrolled
        // The clamp only keeps the index in bounds in the branch the compiler drops.
#pragma unroll
        for (int e = 0; e < 4; ++e) qa[mi][e] = q_frag[mi][ks < kQRegs ? ks : 0][e];
      } else {
        ldmatrix_x4(qa[mi], q_ld.at(mi * 16, 2 * ks));
      }
    }
#pragma unroll
    for (int nn = 0; nn < kNT / 2; ++nn) {
      std::uint32_t kb[4];
      ldmatrix_x4(kb, k_ld.at(nn * 16, 2 * ks) + kv_off);
#pragma unroll
      for (int mi = 0; mi < kMT; ++mi) {
        mma_16816<T>(s[mi][2 * nn], qa[mi], kb[0], kb[1]);
        mma_16816<T>(s[mi][2 * nn + 1], qa[mi], kb[2], kb[3]);
      }
    }
  }
}

// acc_o += P·V, P the probabilities left in s by the softmax.
template <typename Traits, typename T>
__device__ __forceinline__ void pv_accumulate(
    float (&acc_o)[Traits::kMTiles][Traits::kHeadDim / 8][4],
    const float (&s)[Traits::kMTiles][Traits::kBlockN / 8][4],
    const LdsmBases<Traits::kPitch>& v_ld, std::uint32_t kv_off) {
  constexpr int kMT = Traits::kMTiles;
#pragma unroll
  for (int kk = 0; kk < Traits::kBlockN / 16; ++kk) {
    std::uint32_t pa[kMT][4];
#pragma unroll
    for (int mi = 0; mi < kMT; ++mi) {
      pa[mi][0] = pack2<T>(s[mi][2 * kk][0], s[mi][2 * kk][1]);
      pa[mi][1] = pack2<T>(s[mi][2 * kk][2], s[mi][2 * kk][3]);
      pa[mi][2] = pack2<T>(s[mi][2 * kk + 1][0], s[mi][2 * kk + 1][1]);
      pa[mi][3] = pack2<T>(s[mi][2 * kk + 1][2], s[mi][2 * kk + 1][3]);
    }
#pragma unroll
    for (int dn = 0; dn < Traits::kHeadDim / 16; ++dn) {
      std::uint32_t vb[4];
      ldmatrix_x4_trans(vb, v_ld.at(kk * 16, 2 * dn) + kv_off);
#pragma unroll
      for (int mi = 0; mi < kMT; ++mi) {
        mma_16816<T>(acc_o[mi][2 * dn], pa[mi], vb[0], vb[1]);
        mma_16816<T>(acc_o[mi][2 * dn + 1], pa[mi], vb[2], vb[3]);
      }
    }
  }
}

}  // namespace fa2
}  // namespace fa2b
