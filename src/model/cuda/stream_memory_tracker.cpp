// SPDX-License-Identifier: Apache-2.0
#include "model/cuda/stream_memory_tracker.h"

#include <cstdint>

#include "runtime/cuda/cuda_check.h"

namespace fa2b::model::cuda {

StreamMemoryTracker::StreamMemoryTracker() {
  int device = 0;
  FA2B_CUDA_CHECK(cudaGetDevice(&device));
  FA2B_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool_, device));
  // Keep what is freed for the next allocation of the step instead of returning it to the
  // driver at every synchronisation.
  std::uint64_t keep = UINT64_MAX;
  FA2B_CUDA_CHECK(cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &keep));
  FA2B_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
}

StreamMemoryTracker::~StreamMemoryTracker() {
  (void)cudaStreamSynchronize(stream_);
  (void)cudaMemPoolTrimTo(pool_, 0);
  (void)cudaStreamDestroy(stream_);
}

void* StreamMemoryTracker::raw_allocate(std::size_t bytes) {
  void* p = nullptr;
  const cudaError_t err = cudaMallocAsync(&p, bytes, stream_);
  if (err == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();  // not sticky
    return nullptr;
  }
  if (err != cudaSuccess) throw CudaError(err, "cudaMallocAsync", __FILE__, __LINE__);
  return p;
}

void StreamMemoryTracker::raw_release(void* ptr) noexcept {
  (void)cudaFreeAsync(ptr, stream_);
}

}  // namespace fa2b::model::cuda
