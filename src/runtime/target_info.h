// SPDX-License-Identifier: Apache-2.0
// What the runner and the backends know about the place a case runs on. It lives in runtime
// (which fills it from the device queries) so that runtime needs nothing from the backends.
#pragma once

#include <cstdint>

namespace fa2b {

struct TargetInfo {
  bool cuda = false;
  int cc_major = 0, cc_minor = 0;  // CUDA devices only
  std::int64_t memory_bytes = 0;
  // Opt-in dynamic shared memory per block (cudaDevAttrMaxSharedMemoryPerBlockOptin), bytes;
  // 0: unknown. fa2 picks its tiles within it.
  std::int64_t smem_per_block_optin = 0;
  // Multiprocessors (CUDA devices); 0: unknown. fa2's split-KV count depends on them, and so
  // does the predicted workspace of its decode path (backends/predicted_memory.h).
  int sms = 0;
  int cpu_threads = 1;
};

}  // namespace fa2b
