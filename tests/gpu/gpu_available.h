// SPDX-License-Identifier: Apache-2.0
// GPU tests skip cleanly on machines without a usable CUDA device.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdlib>

namespace fa2b {

inline bool gpu_available() {
  int n = 0;
  const bool ok = cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
  if (!ok) (void)cudaGetLastError();
  return ok;
}

// Under compute-sanitizer (scripts/sanitize.sh sets FA2BENCH_UNDER_SANITIZER) every kernel runs
// many times slower and launches serialise: tests check correctness there, not which of two
// timings is shorter.
inline bool under_sanitizer() {
  return std::getenv("FA2BENCH_UNDER_SANITIZER") != nullptr;
}

}  // namespace fa2b

#define FA2B_REQUIRE_GPU()                                          \
  do {                                                              \
    if (!::fa2b::gpu_available()) GTEST_SKIP() << "no CUDA device"; \
  } while (0)
