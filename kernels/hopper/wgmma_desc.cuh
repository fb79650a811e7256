// SPDX-License-Identifier: Apache-2.0
// Shared-memory matrix descriptors of wgmma for tiles in the 128-byte swizzled layout of
// sw128_tile.cuh (the PTX ISA's "matrix descriptor format", 64 bits):
//   bits  0-13 start address >> 4, bits 16-29 leading byte offset >> 4,
//   bits 32-45 stride byte offset >> 4, bits 62-63 swizzle mode (1 = 128-byte).
// A tile is stored as column blocks of 64 b16 elements; each row of a block is one 128-byte
// line and eight lines form a 1024-byte swizzle atom. Read as
//   K-major (the contraction runs along the row, as Q and K in Q·Kᵀ): the stride byte offset
//     steps 8 rows (1024); the leading offset is unused; a k-step of 16 adds 32 bytes inside a
//     block and a whole block (rows × 128 bytes) every 4 k-steps;
//   MN-major (the contraction runs down the rows, as V in P·V): the leading byte offset steps
//     to the next 64-column block (rows × 128 bytes), the stride byte offset steps 8 rows
//     (1024), and a k-step of 16 rows adds 2048 bytes.
#pragma once

#include <cstdint>

namespace fa2b {
namespace sm90 {

__device__ __forceinline__ std::uint64_t sw128_desc(std::uint32_t smem_addr,
                                                    std::uint32_t leading_bytes,
                                                    std::uint32_t stride_bytes) {
  std::uint64_t d = (smem_addr & 0x3FFFFu) >> 4;
  d |= static_cast<std::uint64_t>((leading_bytes & 0x3FFFFu) >> 4) << 16;
  d |= static_cast<std::uint64_t>((stride_bytes & 0x3FFFFu) >> 4) << 32;
  d |= 1ull << 62;
  return d;
}

// The descriptor of K-major tile rows [row0, ...) at k-step ks (16 columns) of a tile with
// kRows rows.
template <int kRows>
__device__ __forceinline__ std::uint64_t kmajor_desc(std::uint32_t tile, int row0, int ks) {
  return sw128_desc(tile + (ks >> 2) * kRows * 128 + row0 * 128 + (ks & 3) * 32, 16, 1024);
}

// The descriptor of MN-major tile rows [16 ks, 16 ks + 16) (the contraction index), every
// column of a tile with kRows rows.
template <int kRows>
__device__ __forceinline__ std::uint64_t mnmajor_desc(std::uint32_t tile, int ks) {
  return sw128_desc(tile + ks * 16 * 128, kRows * 128, 1024);
}

}  // namespace sm90
}  // namespace fa2b
