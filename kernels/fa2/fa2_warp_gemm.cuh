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

namespace fa2b {
namespace fa2 {

// Shared-memory address of logical element (row, col) of a swizzled tile of kCols columns
// (smem_swizzle.cuh); col is a multiple of 8.
template <int kCols, typename T>
__device__ __forceinline__ std::uint32_t tile_addr(const T* tile, int row, int col) {
  return smem_u32(tile) + static_cast<std::uint32_t>(SwizzledTile<kCols>::offset(row, col) * 2);
}

// acc[j] += A * B for the 8-column tiles j of one 16-row strip.
//   A(m, k) is tile sA at (a_row + m, a_col + k), or at (a_row + k, a_col + m) when kATrans.
//   B(k, n) is tile sB at (b_row + n, b_col + k), or at (b_row + k, b_col + n) when kBTrans.
// kACols / kBCols: the column counts the tiles were laid out with. Rows and columns passed in
// are multiples of 8, so each 8-lane ldmatrix group reads 8 consecutive rows: conflict-free
// under the swizzle.
template <typename T, int kK, int kNT, bool kATrans, bool kBTrans, int kACols, int kBCols>
__device__ __forceinline__ void warp_gemm_16xn(float (&acc)[kNT][4], const T* sA, int a_row,
                                               int a_col, const T* sB, int b_row, int b_col,
                                               int lane) {
  static_assert(kK % 16 == 0, "k in steps of 16");
  static_assert(kNT % 2 == 0, "n in steps of 16 (one x4 ldmatrix feeds two 8-column tiles)");
  // Lane l addresses a row of matrix l / 8 of each x4 load; see mma.cuh for the fragments.
  const int quad = lane >> 3;
  const int a_r = kATrans ? a_row + (lane & 7) + ((quad >> 1) << 3) : a_row + (lane & 15);
  const int a_c = kATrans ? a_col + ((quad & 1) << 3) : a_col + ((quad >> 1) << 3);
  const int b_r = kBTrans ? b_row + (lane & 7) + ((quad & 1) << 3)
                          : b_row + (lane & 7) + ((quad >> 1) << 3);
  const int b_c = kBTrans ? b_col + ((quad >> 1) << 3) : b_col + ((quad & 1) << 3);
#pragma unroll
  for (int ks = 0; ks < kK / 16; ++ks) {
    std::uint32_t a[4];
    if constexpr (kATrans) {
      ldmatrix_x4_trans(a, tile_addr<kACols>(sA, a_r + ks * 16, a_c));
    } else {
      ldmatrix_x4(a, tile_addr<kACols>(sA, a_r, a_c + ks * 16));
    }
#pragma unroll
    for (int nn = 0; nn < kNT / 2; ++nn) {
      std::uint32_t b[4];
      if constexpr (kBTrans) {
        ldmatrix_x4_trans(b, tile_addr<kBCols>(sB, b_r + ks * 16, b_c + nn * 16));
      } else {
        ldmatrix_x4(b, tile_addr<kBCols>(sB, b_r + nn * 16, b_c + ks * 16));
      }
      mma_16816<T>(acc[2 * nn], a, b[0], b[1]);
      mma_16816<T>(acc[2 * nn + 1], a, b[2], b[3]);
    }
  }
}

}  // namespace fa2
}  // namespace fa2b
