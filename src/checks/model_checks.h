// SPDX-License-Identifier: Apache-2.0
// The checks of a config of transformer sweeps over its results (kind fa2bench-model-results):
// status, threshold and ratio with the attention checks' selectors, ops, verdicts and wording,
// over the cases and metrics of a training step (io/model_results.h).
#pragma once

#include <vector>

#include "checks/checks.h"
#include "config/config.h"
#include "io/model_results.h"

namespace fa2b {

// One verdict per check, in config order. As for attention results, a check that needs a
// number a case does not have (oom, error, no partner of the ratio's shape) or whose
// selection matches no case gets verdict `error`, never a silent pass.
// `device`: the results' device block, whose capacity_bytes judges `where: fits/exceeds`
// against each case's predicted (plan) peak. A ratio of peak_bytes never reads an oom case's
// peak: with "pairs": "both_ran" such a pair is left out (`skipped` below min_pairs), without it
// the verdict is `error`.
std::vector<Verdict> evaluate_model_checks(const std::vector<CheckSpec>& checks,
                                           const std::vector<ModelCaseRecord>& cases,
                                           const nlohmann::json& device = nlohmann::json());

}  // namespace fa2b
