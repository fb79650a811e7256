// SPDX-License-Identifier: Apache-2.0
// Which environment overrides are set now (kernels/common/env_knobs.h and the harness's own),
// for the results' tool.overrides (core/tool_block.h).
#pragma once

#include <nlohmann/json.hpp>

namespace fa2b {

// The environment variables set now that change what a run measures or how: the kernel knobs
// (kernels/common/env_knobs.h) and the harness's (the CPU target's thread count, the host
// float64 reference). An object name -> value; empty when none is set.
nlohmann::json active_overrides();

}  // namespace fa2b
