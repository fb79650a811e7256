// SPDX-License-Identifier: Apache-2.0
// The `tool` block every results file carries: which fa2bench measured it, and the environment
// overrides that were set, so that a result measured off the shipped launch path says so.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace fa2b {

// {"name", "version", "git", "build", "overrides": overrides}; `overrides` is what
// active_overrides() (backends/env_overrides.h) found set when the run started.
nlohmann::json tool_block(nlohmann::json overrides);

// The overrides a tool block records (an empty object for files written before they were
// recorded, or by other tools).
nlohmann::json overrides_of(const nlohmann::json& tool);

// One line for stderr naming the overrides of a tool block ("" when none), said when a sweep
// starts so that nobody mistakes an A/B run for the product's numbers.
std::string overrides_note(const nlohmann::json& tool);

}  // namespace fa2b
