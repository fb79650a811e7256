// SPDX-License-Identifier: Apache-2.0
// One warp's tensor-core GEMM on swizzled shared-memory tiles: a 16-row strip of C (fp32
// accumulators in the m16n8 layout of mma.cuh) += A (16 x kK) * B (kK x 8 kNT).
//
// Either operand may be stored in either orientation; ldmatrix's .trans variant turns a tile
// stored k-major into the fragment the mma wants, so the backward's transposed products
// (dV = P^T dO, dK = dS^T Q, dQ = dS K) read P, dS, Q, dO and K where the forward-shaped phase
// left them, without a transposing copy.
#pragma once

#include <cstdint>

#include "common/mma.cuh"
#include "common/smem_swizzle.cuh"
#include "common/unhoisted_index.cuh"

namespace fa2b {
namespace fa2 {

// Per-lane ldmatrix addresses into a swizzled tile of kCols columns (smem_swizzle.cuh), for
// the lane's row `row` (the tile row the lane addresses, whose row % 8 is the swizzle key) and
// 16-byte chunk `chunk0 + half` (chunk0 even, may differ per warp). The XOR with the key is not
// an addition, so the four chunk phases (chunk % 8) / 2 get their own base once; every address
// inside the loops is then base + a compile-time offset (an instruction immediate).
template <int kCols>
struct SwizzledBases {
  static constexpr int kPitch = SwizzledTile<kCols>::kPitch;
  std::uint32_t base[4];
  __device__ __forceinline__ SwizzledBases(std::uint32_t tile, int row, int chunk0, int half) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int logical = chunk0 + 2 * i + half;
      const int phys = ((logical & 7) ^ (row & 7)) | (logical & ~7);
      base[i] = tile + static_cast<std::uint32_t>((row * kPitch + phys * 8) * 2);
    }
  }
  // Address of rows + `row_off` (a multiple of 8) and chunks + `chunk_off` (even), both
  // compile-time after unrolling.
  __device__ __forceinline__ std::uint32_t at(int row_off, int chunk_off) const {
    return base[(chunk_off & 7) >> 1] +
           static_cast<std::uint32_t>((row_off * kPitch + (chunk_off & ~7) * 8) * 2);
  }
};

// acc[i][j] += A * B for kMT 16-row strips i (rows 16 i of A) and their 8-column tiles j; the
// strips share every B fragment, so a warp tile of kMT x kNT costs kMT + kNT / 2 ldmatrix per
// k-step for 2 kMT kNT / 2 mma.
//   A(m, k) is tile sA at (a_row + m, a_col + k), or at (a_row + k, a_col + m) when kATrans.
//   B(k, n) is tile sB at (b_row + n, b_col + k), or at (b_row + k, b_col + n) when kBTrans.
// kACols / kBCols: the column counts the tiles were laid out with. Rows and columns passed in
// are multiples of 8, so each 8-lane ldmatrix group reads 8 consecutive rows: conflict-free
// under the swizzle.
template <typename T, int kK, int kMT, int kNT, bool kATrans, bool kBTrans, int kACols, int kBCols>
__device__ __forceinline__ void warp_gemm(float (&acc)[kMT][kNT][4], const T* sA, int a_row,
                                          int a_col, const T* sB, int b_row, int b_col, int lane) {
  static_assert(kK % 16 == 0, "k in steps of 16");
  static_assert(kNT % 2 == 0, "n in steps of 16 (one x4 ldmatrix feeds two 8-column tiles)");
  // Lane l addresses a row of matrix l / 8 of each x4 load; see mma.cuh for the fragments.
  // Callers pass columns that are multiples of 16 (even chunks).
  // The lane is re-read here (not hoisted): the bases derived from it are loop-invariant, and
  // kept live across the kernel's query-block loop they would pin 8 registers per call site.
  lane = thread_index_unhoisted() & 31;
  const int quad = lane >> 3;
  const SwizzledBases<kACols> a_at =
      kATrans ? SwizzledBases<kACols>(smem_u32(sA), a_row + (lane & 7) + ((quad >> 1) << 3),
                                      a_col >> 3, quad & 1)
              : SwizzledBases<kACols>(smem_u32(sA), a_row + (lane & 15), a_col >> 3, quad >> 1);
  const SwizzledBases<kBCols> b_at =
      kBTrans ? SwizzledBases<kBCols>(smem_u32(sB), b_row + (lane & 7) + ((quad & 1) << 3),
                                      b_col >> 3, quad >> 1)
              : SwizzledBases<kBCols>(smem_u32(sB), b_row + (lane & 7) + ((quad >> 1) << 3),
                                      b_col >> 3, quad & 1);
#pragma unroll
  for (int ks = 0; ks < kK / 16; ++ks) {
    std::uint32_t a[kMT][4];
#pragma unroll
    for (int mi = 0; mi < kMT; ++mi) {
      if constexpr (kATrans) {
        ldmatrix_x4_trans(a[mi], a_at.at(ks * 16, 2 * mi));
      } else {
        ldmatrix_x4(a[mi], a_at.at(mi * 16, 2 * ks));
      }
    }
#pragma unroll
    for (int nn = 0; nn < kNT / 2; ++nn) {
      std::uint32_t b[4];
      if constexpr (kBTrans) {
        ldmatrix_x4_trans(b, b_at.at(ks * 16, 2 * nn));
      } else {
        ldmatrix_x4(b, b_at.at(nn * 16, 2 * ks));
      }
#pragma unroll
      for (int mi = 0; mi < kMT; ++mi) {
        mma_16816<T>(acc[mi][2 * nn], a[mi], b[0], b[1]);
        mma_16816<T>(acc[mi][2 * nn + 1], a[mi], b[2], b[3]);
      }
    }
  }
}

}  // namespace fa2
}  // namespace fa2b
