// SPDX-License-Identifier: Apache-2.0
// A device allocation owned by a GPU test (null when cudaMalloc failed; tests assert on it).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

namespace fa2b {

struct DevBuf {
  void* ptr = nullptr;
  explicit DevBuf(std::size_t bytes) {
    if (cudaMalloc(&ptr, std::max<std::size_t>(bytes, 16)) != cudaSuccess) ptr = nullptr;
  }
  ~DevBuf() { cudaFree(ptr); }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
};

}  // namespace fa2b
