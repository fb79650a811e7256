// SPDX-License-Identifier: Apache-2.0
// The opt-in a kernel needs before it launches with more than 48 KB of dynamic shared memory,
// made once per (entry point, device).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

namespace fa2b {

// Keyed by the entry point's host address and the device, not held in a function-local static
// of the (inline) launch function: a kernel template instantiated in two translation units (a
// shipped unit and a tuning unit) has a device module in each, while such a static is shared
// by both units' copies of the launch function, so the second unit's kernel launched without
// its opt-in (cudaErrorInvalidValue, session 18's tune). The attribute is also per device.
// Per host thread (setting it twice is harmless), so a launch in a timed loop takes no lock, and
// the last entry is checked first, as a loop launches the same kernel again and again.
inline cudaError_t opt_in_dynamic_smem(const void* kernel, int bytes) {
  int dev = 0;
  const cudaError_t dev_err = cudaGetDevice(&dev);
  if (dev_err != cudaSuccess) return dev_err;
  struct Done {
    const void* kernel;
    int dev;
    cudaError_t err;
  };
  thread_local std::vector<Done> done;
  thread_local std::size_t last = 0;
  const auto hit = [&](std::size_t i) { return done[i].kernel == kernel && done[i].dev == dev; };
  if (last < done.size() && hit(last)) return done[last].err;
  for (std::size_t i = 0; i < done.size(); ++i) {
    if (hit(i)) {
      last = i;
      return done[i].err;
    }
  }
  const cudaError_t err =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
  last = done.size();
  done.push_back({kernel, dev, err});
  return err;
}

}  // namespace fa2b
