// SPDX-License-Identifier: Apache-2.0
// Measures one case: allocate, fill, verify against the float64 reference, time.
#pragma once

#include <cstdint>
#include <string>

#include "backends/backend.h"
#include "core/result.h"
#include "runner/platform.h"

namespace fa2b {

// `--dump`: where this case writes its tensors (see runner/case_dump.h), and the size cap.
struct DumpRequest {
  std::string dir;
  std::int64_t max_bytes = std::int64_t{1} << 30;
};

// Never throws for problems of the case itself: unsupported, out of memory and runtime errors
// become the result's status. Every buffer is freed before it returns. With `dump`, the case's
// tensors and reference rows are written after verification.
CaseResult run_case(const Case& c, Backend& backend, Platform& platform,
                    const DumpRequest* dump = nullptr);

}  // namespace fa2b
