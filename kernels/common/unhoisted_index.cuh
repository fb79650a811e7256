// SPDX-License-Identifier: Apache-2.0
// threadIdx.x and blockIdx.x read through volatile PTX moves, which the compiler may not hoist:
// a kernel re-reads its lane geometry inside a loop instead of pinning registers across it
// (fa2's warp GEMMs, mask and backward).
#pragma once

namespace fa2b {

// threadIdx.x through a volatile read, which the compiler may not hoist out of a loop.
__device__ __forceinline__ int thread_index_unhoisted() {
  int tid;
  asm volatile("mov.u32 %0, %%tid.x;\n" : "=r"(tid));
  return tid;
}

// blockIdx.x likewise: what a loop computes from it (and from kernel parameters, which stay in
// the constant bank) is recomputed where it is used instead of holding a register.
__device__ __forceinline__ int block_index_unhoisted() {
  int b;
  asm volatile("mov.u32 %0, %%ctaid.x;\n" : "=r"(b));
  return b;
}

}  // namespace fa2b
