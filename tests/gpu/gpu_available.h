// SPDX-License-Identifier: Apache-2.0
// GPU tests skip cleanly on machines without a usable CUDA device.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

namespace fa2b {

inline bool gpu_available() {
  int n = 0;
  const bool ok = cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
  if (!ok) (void)cudaGetLastError();
  return ok;
}

}  // namespace fa2b

#define FA2B_REQUIRE_GPU()                                          \
  do {                                                              \
    if (!::fa2b::gpu_available()) GTEST_SKIP() << "no CUDA device"; \
  } while (0)
