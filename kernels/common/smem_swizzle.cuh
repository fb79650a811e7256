// SPDX-License-Identifier: Apache-2.0
// XOR swizzle for row-major b16 tiles in shared memory.
//
// ldmatrix reads eight 16-byte rows at the same logical column; with a row pitch that is a
// multiple of 128 bytes those rows would all hit the same four banks. XOR-ing the 16-byte chunk
// index with (row % 8) spreads them over all 32 banks. The pitch is rounded up to a multiple of
// 64 elements (128 bytes) so every XOR stays inside the row; head dims such as 96, 160 and 224
// pay some padding for that rather than a second, irregular swizzle.
#pragma once

namespace fa2b {

template <int kCols>
struct SwizzledTile {
  static constexpr int kPitch = (kCols + 63) / 64 * 64;  // elements per smem row

  // Element offset of the 16-byte chunk holding logical (row, col); col must be a multiple of 8.
  __device__ __forceinline__ static int offset(int row, int col) {
    return row * kPitch + ((((col >> 3) ^ row) & 7) | ((col >> 3) & ~7)) * 8;
  }
};

}  // namespace fa2b
