// SPDX-License-Identifier: Apache-2.0
// Tiles of b16 elements in shared memory in the 128-byte swizzled layout wgmma reads
// (wgmma_desc.cuh): column blocks of 64 elements, each kRows × 128 bytes; inside a block, the
// 16-byte chunk c of row r sits at chunk c ^ (r % 8) of its line, so eight rows reading the same
// logical chunk hit eight different bank groups. Tile bases are 1024-byte aligned.
#pragma once

#include <cstdint>

#include "common/cp_async.cuh"

namespace fa2b {
namespace sm90 {

// Byte offset of the 16-byte chunk `chunk` (columns 8 chunk .. 8 chunk + 7) of row `row`.
template <int kRows>
__device__ __forceinline__ std::uint32_t sw128_offset(int row, int chunk) {
  return (chunk >> 3) * kRows * 128 + row * 128 + (((chunk & 7) ^ (row & 7)) << 4);
}

// cp.async of rows [row0, row0 + kRows) of a kCols-wide row-major global tile into `tile`;
// rows at or past `rows_valid` are zero-filled (no global read), so tails stay finite.
template <int kRows, int kCols, int kThreads, typename T>
__device__ __forceinline__ void load_sw128_tile(std::uint32_t tile, const T* g,
                                                std::int64_t row_stride, int row0, int rows_valid,
                                                int tid) {
  constexpr int kChunksPerRow = kCols / 8;
  constexpr int kChunks = kRows * kChunksPerRow;
  static_assert(kChunks % kThreads == 0, "tile chunks must divide evenly over the threads");
#pragma unroll
  for (int it = 0; it < kChunks / kThreads; ++it) {
    const int idx = it * kThreads + tid;
    const int r = idx / kChunksPerRow;
    const int c = idx % kChunksPerRow;
    const bool valid = row0 + r < rows_valid;
    const T* src = valid ? g + static_cast<std::int64_t>(row0 + r) * row_stride + c * 8 : g;
    cp_async_16(tile + sw128_offset<kRows>(r, c), src, valid);
  }
}

}  // namespace sm90
}  // namespace fa2b
