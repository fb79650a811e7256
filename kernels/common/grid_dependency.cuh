// SPDX-License-Identifier: Apache-2.0
// Programmatic dependent launch (sm_90): a kernel launched with
// cudaLaunchAttributeProgrammaticStreamSerialization may start while the kernel before it in the
// stream still runs, once every CTA of that one has called grid_dependency_launch_dependents()
// (or exited); it must call grid_dependency_wait() before it reads what that kernel writes.
// Both are no-ops before sm_90 and in a kernel launched without the attribute.
#pragma once

namespace fa2b {

// Blocks until the grids this one depends on have completed and their writes are visible.
__device__ __forceinline__ void grid_dependency_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}

// Lets the dependent grid be scheduled before this CTA ends (its CTAs then wait in
// grid_dependency_wait, not at the launch).
__device__ __forceinline__ void grid_dependency_launch_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::);
#endif
}

}  // namespace fa2b
