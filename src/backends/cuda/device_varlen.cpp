// SPDX-License-Identifier: Apache-2.0
#include "backends/cuda/device_varlen.h"

#include <cuda_runtime.h>

#include "runtime/cuda/cuda_check.h"

namespace fa2b {

void DeviceVarlenArrays::prepare(const Case& c, MemoryTracker& tracker) {
  prepare_with(c, tracker, [](void* dst, const void* src, std::size_t bytes) {
    FA2B_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
  });
}

}  // namespace fa2b
