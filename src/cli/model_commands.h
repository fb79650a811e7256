// SPDX-License-Identifier: Apache-2.0
// The transformer-scope half of `plan` (configs of "scope": "transformer" sweeps); the
// attention plan hands over to it when a config holds model cases. The sweep's half is the
// application's (app/model_sweep.h).
#pragma once

#include <cstdint>
#include <string>

#include "cli/commands.h"
#include "config/config.h"

namespace fa2b {

// `plan` for model cases: per case parameters, bytes by kind, predicted peak, FLOPs, fit.
int print_model_plan(const Config& config, std::int64_t memory, const std::string& memory_from);

}  // namespace fa2b
