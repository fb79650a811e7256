// SPDX-License-Identifier: Apache-2.0
// Shared-memory transaction barriers (mbarrier, sm_90) for pipelines between a producer that
// fills shared memory with the copy engine (tma.cuh) and consumer warps that read it.
//
// A barrier completes a phase when its expected arrivals have arrived and, for a "full"
// barrier, the bytes announced with arrive_expect_tx have landed. Phases alternate parity
// 0, 1, 0, ...; wait(parity) returns once the phase of that parity has completed. A barrier
// fresh from init is in phase 0, so wait(1) returns at once: a producer waits on its "empty"
// barriers with the parity flipped and finds every stage free on its first pass.
#pragma once

#include <cstdint>

namespace fa2b {
namespace sm90 {

__device__ __forceinline__ void mbar_init(std::uint32_t bar, std::uint32_t arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(arrivals) : "memory");
}

// After every init of the CTA, before any thread or the copy engine uses the barriers (then a
// __syncthreads publishes them to the other threads).
__device__ __forceinline__ void mbar_fence_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

// One arrival that also announces `bytes` more to land before the phase can complete.
__device__ __forceinline__ void mbar_arrive_expect_tx(std::uint32_t bar, std::uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void mbar_arrive(std::uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}

// An arrival made by the hardware once every cp.async this thread issued before it has landed
// (noinc: the barrier's expected count must include it), so a thread's plain copies can feed a
// stage alongside the copy engine's bytes without the thread waiting for them.
__device__ __forceinline__ void mbar_arrive_on_cp_async(std::uint32_t bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(bar) : "memory");
}

__device__ __forceinline__ bool mbar_try_wait(std::uint32_t bar, std::uint32_t parity) {
  std::uint32_t done;
  asm volatile(
      "{\n.reg .pred p;\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
      "selp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(done)
      : "r"(bar), "r"(parity)
      : "memory");
  return done != 0;
}

// Blocks until the phase of the given parity has completed (try_wait itself suspends the
// thread for a while before it answers false, so the loop does not spin hot).
__device__ __forceinline__ void mbar_wait(std::uint32_t bar, std::uint32_t parity) {
  while (!mbar_try_wait(bar, parity)) {
  }
}

// The i-th use of a ring of kSlots buffers, each with a full and an empty barrier, takes slot
// i % kSlots in barrier phase (i / kSlots) % 2.
template <int kSlots>
__device__ __forceinline__ int ring_slot(int i) {
  return i % kSlots;
}
template <int kSlots>
__device__ __forceinline__ std::uint32_t ring_phase(int i) {
  return static_cast<std::uint32_t>(i / kSlots) & 1u;
}

}  // namespace sm90
}  // namespace fa2b
