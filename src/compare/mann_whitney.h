// SPDX-License-Identifier: Apache-2.0
// The Mann-Whitney U test on two runs' raw timing samples (time_ms.samples), two-sided, as
// google/benchmark's compare.py runs it (scipy.stats.mannwhitneyu, alternative='two-sided').
#pragma once

#include <vector>

namespace fa2b {

// Fewer samples than this on either side and compare leaves the verdict to the threshold rule:
// google/benchmark's compare.py warns below 9 repetitions that the test's result is unreliable.
inline constexpr int kUTestMinSamples = 9;

struct UTestResult {
  double u = 0;  // U of the first sample: the number of pairs (x, y) with x > y, ties half
  double p = 1;  // two-sided p-value
};

// scipy's method='asymptotic': the normal approximation with the tie correction of the
// variance and a continuity correction of 0.5. scipy's default method='auto' instead computes
// the exact distribution when both sides have at most 8 samples and no ties; compare never
// tests fewer than kUTestMinSamples per side, where the approximation is close to exact, so
// the normal approximation is used throughout. Non-finite samples must be removed first.
UTestResult mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace fa2b
