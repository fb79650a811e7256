// SPDX-License-Identifier: Apache-2.0
// Properties of the current device that launch code reads on every call, looked up once per
// device and cached (a driver query per launch would sit in the timed region).
#pragma once

#include <cuda_runtime.h>

#include <atomic>

namespace fa2b {

// Multiprocessors of the current device; 132 (an H100/H200) when the query fails, which only
// sizes grids and split counts, never correctness.
inline int device_sm_count() {
  constexpr int kMaxDevices = 64;
  static std::atomic<int> cached[kMaxDevices];  // zero-initialised (static storage)
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= kMaxDevices) return 132;
  int n = cached[dev].load(std::memory_order_relaxed);
  if (n == 0) {
    if (cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || n < 1) {
      (void)cudaGetLastError();
      n = 132;
    }
    cached[dev].store(n, std::memory_order_relaxed);
  }
  return n;
}

}  // namespace fa2b
