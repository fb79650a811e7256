// SPDX-License-Identifier: Apache-2.0
// MemoryTracker over cudaMalloc/cudaFree: an exhausted device becomes OutOfMemory.
#pragma once

#include "runtime/memory_tracker.h"

namespace fa2b {

class DeviceMemoryTracker final : public MemoryTracker {
 public:
  bool is_device() const override { return true; }

 protected:
  void* raw_allocate(std::size_t bytes) override;
  void raw_release(void* ptr) noexcept override;
};

}  // namespace fa2b
