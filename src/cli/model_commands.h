// SPDX-License-Identifier: Apache-2.0
// The transformer-scope halves of `plan` and `sweep` (configs of "scope": "transformer"
// sweeps); the attention commands hand over to these when a config holds model cases.
#pragma once

#include <cstdint>
#include <string>

#include "cli/commands.h"
#include "config/config.h"

namespace fa2b {

// `plan` for model cases: per case parameters, bytes by kind, predicted peak, FLOPs, fit.
int print_model_plan(const Config& config, std::int64_t memory, const std::string& memory_from);

// `sweep` for model cases (the CUDA step on a device, the host step on the CPU target; in
// this process, --target as for attention sweeps): runs each case's training step, writes
// <out>/results.json and prints a table. `budget`: --memory-budget in bytes (0: none).
int run_model_sweep(const SweepArgs& args, const Config& config, std::int64_t budget);

}  // namespace fa2b
