// SPDX-License-Identifier: Apache-2.0
#include "compare/mann_whitney.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace fa2b {

UTestResult mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y) {
  UTestResult r;
  const double n1 = static_cast<double>(x.size());
  const double n2 = static_cast<double>(y.size());
  if (x.empty() || y.empty()) return r;

  // Ranks over both samples together, tied values sharing their mean rank; the tie term
  // sum(t^3 - t) over groups of t equal values corrects the variance.
  std::vector<std::pair<double, bool>> all;  // value, from x
  all.reserve(x.size() + y.size());
  for (double v : x) all.emplace_back(v, true);
  for (double v : y) all.emplace_back(v, false);
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  double rank_sum_x = 0, ties = 0;
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i;
    while (j < all.size() && all[j].first == all[i].first) ++j;
    const double t = static_cast<double>(j - i);
    const double mean_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
    for (std::size_t k = i; k < j; ++k) {
      if (all[k].second) rank_sum_x += mean_rank;
    }
    ties += t * t * t - t;
    i = j;
  }
  r.u = rank_sum_x - n1 * (n1 + 1) / 2;

  // Two-sided: the larger of U and n1*n2 - U, then P(Z >= z) doubled, as scipy does.
  const double n = n1 + n2;
  const double mu = n1 * n2 / 2;
  const double sigma = std::sqrt(n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1))));
  const double u_big = std::max(r.u, n1 * n2 - r.u);
  if (!(sigma > 0)) return r;  // every value equal: no evidence of a difference, p = 1
  const double z = (u_big - mu - 0.5) / sigma;
  r.p = std::min(1.0, std::erfc(z / std::sqrt(2.0)));  // 2 * (1 - Phi(z))
  return r;
}

}  // namespace fa2b
