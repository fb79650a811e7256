// SPDX-License-Identifier: Apache-2.0
// Evaluate a config's checks over measured results (or, for `plan` checks, over predictions).
#pragma once

#include <vector>

#include "config/config.h"
#include "core/result.h"

namespace fa2b {

// Evaluates every check over the measured cases, in config order, one verdict per check;
// `plan` checks are evaluated over the results' cases, so a results file carries every
// verdict. A check that needs a number from a case that is missing, failed or out of memory
// gets verdict `error`, never a silent pass; so does a selection that matches no case.
std::vector<Verdict> evaluate_checks(const std::vector<CheckSpec>& checks,
                                     const std::vector<CaseResult>& results);

// Evaluates the `plan` checks over the expanded cases, with no measurement.
std::vector<Verdict> evaluate_plan_checks(const std::vector<CheckSpec>& checks,
                                          const std::vector<Case>& cases);

}  // namespace fa2b
