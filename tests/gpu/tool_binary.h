// SPDX-License-Identifier: Apache-2.0
// The fa2bench binary the GPU tests start: FA2BENCH_TEST_BINARY when set (binaries built on one
// machine and run on another, scripts/gpu/unpack_bin.sh), else the one this build made.
#pragma once

#include <cstdlib>
#include <string>

namespace fa2b {

inline std::string fa2bench_binary() {
  const char* moved = std::getenv("FA2BENCH_TEST_BINARY");
  return moved != nullptr && *moved != '\0' ? moved : FA2BENCH_BINARY;
}

}  // namespace fa2b
