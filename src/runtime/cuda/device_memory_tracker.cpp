// SPDX-License-Identifier: Apache-2.0
#include "runtime/cuda/device_memory_tracker.h"

#include <cuda_runtime.h>

#include "runtime/cuda/cuda_check.h"

namespace fa2b {

void* DeviceMemoryTracker::raw_allocate(std::size_t bytes) {
  void* p = nullptr;
  const cudaError_t err = cudaMalloc(&p, bytes);
  if (err == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();  // not sticky: clear it so later calls do not see it
    return nullptr;
  }
  if (err != cudaSuccess) throw CudaError(err, "cudaMalloc", __FILE__, __LINE__);
  return p;
}

void DeviceMemoryTracker::raw_release(void* ptr) noexcept {
  (void)cudaFree(ptr);
}

}  // namespace fa2b
