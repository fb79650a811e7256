// SPDX-License-Identifier: Apache-2.0
// The Tensor Memory Accelerator (copy engine) of sm_90: one instruction copies a box of a
// tensor described by a CUtensorMap (tensor_map.h) from global into shared memory, swizzled
// as the map says, and reports the bytes to an mbarrier (mbarrier.cuh). Rows outside the
// tensor arrive as zeros and still count towards the bytes.
#pragma once

#include <cuda.h>

#include <cstdint>

namespace fa2b {
namespace sm90 {

// The map must live in kernel parameter (__grid_constant__), constant or global memory.
__device__ __forceinline__ void tma_prefetch_map(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<std::uint64_t>(map)) : "memory");
}

// Box at coordinates (c0 innermost .. c3) of a rank-4 map into `dst`, completing on `bar`.
__device__ __forceinline__ void tma_load_4d(std::uint32_t dst, const CUtensorMap* map,
                                            std::uint32_t bar, int c0, int c1, int c2, int c3) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4, %5}], [%6];\n" ::"r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(bar)
      : "memory");
}

// A tile of kCols 64-column boxes by `rows` rows at row0 (coordinates c2, c3 above it) into
// `dst`, the boxes side by side in the 128-byte swizzled layout (rows x 128 bytes each), all
// completing on `bar`.
template <int kCols>
__device__ __forceinline__ void tma_load_tile_4d(std::uint32_t dst, const CUtensorMap* map,
                                                 std::uint32_t bar, int rows, int row0, int c2,
                                                 int c3) {
#pragma unroll
  for (int c = 0; c < kCols; ++c) tma_load_4d(dst + c * rows * 128, map, bar, 64 * c, row0, c2, c3);
}

// Box at coordinates (c0 innermost, c1) of a rank-2 map into `dst`, completing on `bar`.
__device__ __forceinline__ void tma_load_2d(std::uint32_t dst, const CUtensorMap* map,
                                            std::uint32_t bar, int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(c0), "r"(c1), "r"(bar)
      : "memory");
}

// Adds the box at `src` into the tensor at coordinates (c0 innermost .. c3) of a rank-4 map,
// element by element in global memory (the copy engine does the read-modify-write); elements
// outside the tensor are skipped. Completes asynchronously, tracked by bulk groups.
__device__ __forceinline__ void tma_reduce_add_4d(const CUtensorMap* map, std::uint32_t src, int c0,
                                                  int c1, int c2, int c3) {
  asm volatile(
      "cp.reduce.async.bulk.tensor.4d.global.shared::cta.add.tile.bulk_group"
      " [%0, {%1, %2, %3, %4}], [%5];\n" ::"l"(reinterpret_cast<std::uint64_t>(map)),
      "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(src)
      : "memory");
}

// Stores the box at `src` into the tensor at coordinates (c0 innermost .. c3) of a rank-4 map;
// elements outside the tensor are skipped. Completes asynchronously, tracked by bulk groups.
__device__ __forceinline__ void tma_store_4d(const CUtensorMap* map, std::uint32_t src, int c0,
                                             int c1, int c2, int c3) {
  asm volatile(
      "cp.async.bulk.tensor.4d.global.shared::cta.bulk_group"
      " [%0, {%1, %2, %3, %4}], [%5];\n" ::"l"(reinterpret_cast<std::uint64_t>(map)),
      "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(src)
      : "memory");
}

// Closes this thread's bulk operations issued so far into one group.
__device__ __forceinline__ void bulk_commit_group() {
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}

// Waits until at most kPending of this thread's groups still read their shared memory (the
// source may then be overwritten).
template <int kPending>
__device__ __forceinline__ void bulk_wait_group_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(kPending) : "memory");
}

// Waits until at most kPending of this thread's groups are incomplete (their writes done).
template <int kPending>
__device__ __forceinline__ void bulk_wait_group() {
  asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(kPending) : "memory");
}

}  // namespace sm90
}  // namespace fa2b
