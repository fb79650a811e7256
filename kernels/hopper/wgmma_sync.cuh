// SPDX-License-Identifier: Apache-2.0
// Ordering primitives around the sm_90a warpgroup MMA (wgmma), which runs asynchronously and
// reads shared memory through the async proxy.
#pragma once

#include <cstdint>

namespace fa2b {
namespace sm90 {

// Before the first wgmma of a batch: earlier register writes (accumulators rescaled, A
// fragments packed) become visible to the wgmma that reads them.
__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}

// Closes the batch of wgmma issued since the last commit into one group.
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

// Waits until at most kPending committed groups are still running.
template <int kPending>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
}

// Shared memory written through the generic proxy (st.shared, cp.async) becomes visible to
// the async proxy that wgmma reads it through; then a barrier publishes it to the other warps.
__device__ __forceinline__ void fence_smem_for_async_proxy() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// Pins the accumulator registers at this point of the program: the compiler may not move their
// reads or writes across it, so nothing touches them while a wgmma is still writing them.
// Also for A fragments in registers: wgmma reads them asynchronously, so they must stay live
// (not be reallocated) until the wait that covers the wgmma reading them.
template <int kN>
__device__ __forceinline__ void fence_operands(float (&d)[kN]) {
#pragma unroll
  for (int i = 0; i < kN; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

template <int kN, int kM>
__device__ __forceinline__ void fence_operands(std::uint32_t (&a)[kN][kM]) {
#pragma unroll
  for (int i = 0; i < kN; ++i) {
#pragma unroll
    for (int j = 0; j < kM; ++j) asm volatile("" : "+r"(a[i][j])::"memory");
  }
}

}  // namespace sm90
}  // namespace fa2b
