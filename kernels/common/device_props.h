// SPDX-License-Identifier: Apache-2.0
// Properties of the current device that launch code reads on every call, looked up once per
// device and cached (a driver query per launch would sit in the timed region).
#pragma once

#include <cuda_runtime.h>

#include <atomic>

namespace fa2b {

// `attr` of the current device, or `fallback` (an H100/H200's value) when the query fails:
// these only size grids, split counts and tile orders, never correctness.
template <cudaDeviceAttr kAttr>
int cached_device_attribute(int fallback) {
  constexpr int kMaxDevices = 64;
  static std::atomic<int> cached[kMaxDevices];  // zero-initialised (static storage)
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= kMaxDevices) return fallback;
  int n = cached[dev].load(std::memory_order_relaxed);
  if (n == 0) {
    if (cudaDeviceGetAttribute(&n, kAttr, dev) != cudaSuccess || n < 1) {
      (void)cudaGetLastError();
      n = fallback;
    }
    cached[dev].store(n, std::memory_order_relaxed);
  }
  return n;
}

// Multiprocessors of the current device.
inline int device_sm_count() {
  return cached_device_attribute<cudaDevAttrMultiProcessorCount>(132);
}

// Bytes of L2 cache of the current device.
inline int device_l2_bytes() {
  return cached_device_attribute<cudaDevAttrL2CacheSize>(50 * 1024 * 1024);
}

}  // namespace fa2b
