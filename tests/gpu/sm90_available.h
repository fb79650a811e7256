// SPDX-License-Identifier: Apache-2.0
// fa3 tests run on sm_90 GPUs in builds with the sm_90a kernels, and skip cleanly elsewhere.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "fa3/fa3_fwd.h"
#include "gpu_available.h"

namespace fa2b {

inline bool on_sm90() {
  int dev = 0, major = 0, minor = 0;
  if (cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return major == 9 && minor == 0;
}

}  // namespace fa2b

#define FA3_REQUIRE_SM90()                                                                    \
  do {                                                                                        \
    FA2B_REQUIRE_GPU();                                                                       \
    if (!::fa2b::fa3_built()) GTEST_SKIP() << "this build has no sm_90a kernels";             \
    if (!::fa2b::on_sm90()) GTEST_SKIP() << "fa3 runs on sm_90 only; this device is another"; \
  } while (0)
