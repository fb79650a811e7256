// SPDX-License-Identifier: Apache-2.0
// Warp specialisation on sm_90a: warpgroups (4 consecutive warps) given roles hand registers
// to each other with setmaxnreg, and order themselves with named barriers.
#pragma once

#include <cstdint>

namespace fa2b {
namespace sm90 {

// Every thread of the warpgroup executes these; the kernel needs a register cap at entry
// (__launch_bounds__(threads, 1)) for them to take effect.
template <int kRegs>
__device__ __forceinline__ void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}
template <int kRegs>
__device__ __forceinline__ void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}

// Named barrier `id` (1..15; 0 is __syncthreads) over `threads` threads: sync waits for all of
// them, arrive counts this thread without waiting.
__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void named_barrier_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

}  // namespace sm90
}  // namespace fa2b
