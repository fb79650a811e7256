// SPDX-License-Identifier: Apache-2.0
#include "core/stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace fa2b {

static double quantile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

TimeStats summarize(std::vector<double> samples) {
  TimeStats s;
  s.n = static_cast<int>(samples.size());
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  s.min = samples.front();
  s.max = samples.back();
  s.median = quantile(samples, 0.5);
  s.p10 = quantile(samples, 0.1);
  s.p90 = quantile(samples, 0.9);
  s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(s.n);
  double var = 0;
  for (double x : samples) var += (x - s.mean) * (x - s.mean);
  s.stdev = s.n > 1 ? std::sqrt(var / static_cast<double>(s.n - 1)) : 0.0;
  return s;
}

double relative_spread(const TimeStats& s) {
  if (s.n == 0 || !(s.median > 0)) return kNaN;
  return (s.p90 - s.p10) / s.median;
}

}  // namespace fa2b
