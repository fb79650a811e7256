// SPDX-License-Identifier: Apache-2.0
// Named numeric metrics of a case result, as checks and reports refer to them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace fa2b {

// Every metric name a check may use.
const std::vector<std::string>& measured_metric_names();
// The value of `name` for a result; nullopt when the case has no such number (not run,
// out of memory, not verified) or the name is unknown.
std::optional<double> metric_value(const CaseResult& r, std::string_view name);

}  // namespace fa2b
