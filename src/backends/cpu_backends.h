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

}  // namespace fa2b
