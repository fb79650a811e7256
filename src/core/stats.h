// SPDX-License-Identifier: Apache-2.0
// Summary statistics of timing samples.
#pragma once

#include <vector>

#include "core/result.h"

namespace fa2b {

// Median, mean, min, max, p10, p90 (linear interpolation), sample stdev, n. Empty → NaNs.
TimeStats summarize(std::vector<double> samples_ms);
// (p90 - p10) / median: the spread the sampler drives below its target.
double relative_spread(const TimeStats& s);

}  // namespace fa2b
