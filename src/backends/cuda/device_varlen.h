// SPDX-License-Identifier: Apache-2.0
// A variable-length batch's int32 arrays on the device (backends/varlen_arrays.h), copied in
// synchronously in prepare(), outside every timed region.
#pragma once

#include "backends/varlen_arrays.h"
#include "core/case.h"
#include "runtime/memory_tracker.h"

namespace fa2b {

class DeviceVarlenArrays : public VarlenArrays {
 public:
  // Allocates and copies the case's arrays; nothing for a dense case.
  void prepare(const Case& c, MemoryTracker& tracker);
};

}  // namespace fa2b
