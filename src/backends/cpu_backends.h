// SPDX-License-Identifier: Apache-2.0
// Factories for the CPU-target backends (host memory, multithreaded, fp16/bf16 emulated).
#pragma once

#include <memory>

#include "backends/backend.h"

namespace fa2b {

// Standard attention on the CPU: materialises S (float32) and P (input dtype) in host memory
// through the tracker, like the GPU `naive` backend does on the device.
std::unique_ptr<Backend> make_cpu_naive_backend();
// The FlashAttention-2 algorithm on the CPU: tiles, online softmax, running (m, l, O) state,
// O(T*D) extra memory.
std::unique_ptr<Backend> make_cpu_flash_backend();

// cpu-flash's tile scratch: one float32 block per thread it runs on (no more threads than work
// items), tracked like every buffer. The backend allocates it and the prediction on the CPU
// target (backends/predicted_memory.h) counts it, from the same function.
struct CpuFlashScratch {
  int threads = 1;
  std::int64_t per_thread_floats = 0;
  std::int64_t bytes() const { return threads * per_thread_floats * 4; }
};
CpuFlashScratch cpu_flash_scratch(const Case& c, int threads);

}  // namespace fa2b
