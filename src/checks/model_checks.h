// SPDX-License-Identifier: Apache-2.0
// The checks of a config of transformer sweeps over its results (kind fa2bench-model-results):
// status, threshold and ratio with the attention checks' selectors, ops, verdicts and wording,
// over the cases and metrics of a training step (io/model_results.h).
#pragma once

#include <vector>

#include "config/config.h"
#include "io/model_results.h"

namespace fa2b {

// One verdict per check, in config order. As for attention results, a check that needs a
// number a case does not have (oom, error, no partner of the ratio's shape) or whose
// selection matches no case gets verdict `error`, never a silent pass.
std::vector<Verdict> evaluate_model_checks(const std::vector<CheckSpec>& checks,
                                           const std::vector<ModelCaseRecord>& cases);

}  // namespace fa2b
