// SPDX-License-Identifier: Apache-2.0
// Evaluate a config's checks over measured results (or, for `plan` checks, over predictions).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "core/result.h"

namespace fa2b {

// What device-relative checks (`where: fits/exceeds`) compare a case's predicted bytes with:
// the results' device.capacity_bytes (the --memory-budget of the sweep when given, else the
// device's memory; the CPU target: its budget, else the host's memory), so that `check`
// re-judges a results file exactly as the sweep did.
struct CheckContext {
  std::optional<std::int64_t> capacity_bytes;
  std::string capacity_source;  // "memory_budget", "device_memory", "host_memory"
  std::string target;           // the device block's kind: "cuda" or "cpu" ("" unknown)
  std::string cc;               // a CUDA device's compute capability, "9.0" ("" unknown)
};
// The context of a results device block; no capacity when it records none.
CheckContext check_context(const nlohmann::json& device);

// Evaluates every check over the measured cases, in config order, one verdict per check;
// `plan` checks are evaluated over the results' cases, so a results file carries every
// verdict. A check that needs a number from a case that is missing, failed or out of memory
// gets verdict `error`, never a silent pass; so does a selection that matches no case.
// `device`: the results' device block (its capacity_bytes judges `where`; null: unknown, and a
// check with `where` gets `error`).
std::vector<Verdict> evaluate_checks(const std::vector<CheckSpec>& checks,
                                     const std::vector<CaseResult>& results,
                                     const nlohmann::json& device = nlohmann::json());

// Evaluates the `plan` checks over the expanded cases, with no measurement.
std::vector<Verdict> evaluate_plan_checks(const std::vector<CheckSpec>& checks,
                                          const std::vector<Case>& cases);

}  // namespace fa2b
