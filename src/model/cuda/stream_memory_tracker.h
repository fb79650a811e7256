// SPDX-License-Identifier: Apache-2.0
// A MemoryTracker over CUDA's stream-ordered allocator (cudaMallocAsync / cudaFreeAsync on one
// stream, the device's default pool keeping freed memory for reuse): the model step allocates
// and frees activations inside the timed step, and cudaMalloc / cudaFree would synchronise the
// device at every one of them. The tracked bytes are the requests, as with every tracker; the
// pool is trimmed when the tracker goes. An exhausted device becomes OutOfMemory.
#pragma once

#include <cuda_runtime.h>

#include "runtime/memory_tracker.h"

namespace fa2b::model::cuda {

class StreamMemoryTracker final : public MemoryTracker {
 public:
  StreamMemoryTracker();  // creates its stream (non-blocking) on the current device
  ~StreamMemoryTracker() override;
  bool is_device() const override { return true; }
  cudaStream_t stream() const { return stream_; }

 protected:
  void* raw_allocate(std::size_t bytes) override;
  void raw_release(void* ptr) noexcept override;

 private:
  cudaStream_t stream_ = nullptr;
  cudaMemPool_t pool_ = nullptr;
};

}  // namespace fa2b::model::cuda
