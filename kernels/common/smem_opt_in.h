// SPDX-License-Identifier: Apache-2.0
// The opt-in a kernel needs before it launches with more than 48 KB of dynamic shared memory,
// made once per (entry point, device).
#pragma once

#include <cuda_runtime.h>

#include <mutex>
#include <tuple>
#include <vector>

namespace fa2b {

// Keyed by the entry point's host address and the device, not held in a function-local static
// of the (inline) launch function: a kernel template instantiated in two translation units (a
// shipped unit and a tuning unit) has a device module in each, while such a static is shared
// by both units' copies of the launch function, so the second unit's kernel launched without
// its opt-in (cudaErrorInvalidValue, session 18's tune). The attribute is also per device.
inline cudaError_t opt_in_dynamic_smem(const void* kernel, int bytes) {
  int dev = 0;
  const cudaError_t dev_err = cudaGetDevice(&dev);
  if (dev_err != cudaSuccess) return dev_err;
  static std::mutex mutex;
  static std::vector<std::tuple<const void*, int, cudaError_t>> done;
  const std::lock_guard<std::mutex> lock(mutex);
  for (const auto& [k, d, err] : done) {
    if (k == kernel && d == dev) return err;
  }
  const cudaError_t err =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
  done.emplace_back(kernel, dev, err);
  return err;
}

}  // namespace fa2b
