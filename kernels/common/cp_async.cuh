// SPDX-License-Identifier: Apache-2.0
// cp.async (sm_80+) wrappers: global -> shared copies that bypass registers, so tile loads
// overlap the tensor-core work of the previous tile.
#pragma once

#include <cstdint>

namespace fa2b {

// 16-byte copy; when `valid` is false nothing is read and the destination is zero-filled, which
// keeps masked tail rows finite (0 * garbage could otherwise be NaN in P*V).
__device__ __forceinline__ void cp_async_16(std::uint32_t smem_addr, const void* gmem, bool valid) {
  const int src_bytes = valid ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr), "l"(gmem),
               "r"(src_bytes));
}

// 4-byte copy (through L1: .cg takes 16 bytes only), zero-filled when `valid` is false.
__device__ __forceinline__ void cp_async_4(std::uint32_t smem_addr, const void* gmem, bool valid) {
  const int src_bytes = valid ? 4 : 0;
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smem_addr), "l"(gmem),
               "r"(src_bytes));
}

__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::);
}

template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

}  // namespace fa2b
