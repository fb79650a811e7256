// Measures one case: allocate, fill, verify against the float64 reference, time.
#pragma once

#include "backends/backend.h"
#include "core/result.h"
#include "runner/platform.h"

namespace fa2b {

// Never throws for problems of the case itself: unsupported, out of memory and runtime errors
// become the result's status. Every buffer is freed before it returns.
CaseResult run_case(const Case& c, Backend& backend, Platform& platform);

}  // namespace fa2b
