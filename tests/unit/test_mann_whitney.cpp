// SPDX-License-Identifier: Apache-2.0
// The Mann-Whitney U test against scipy's numbers.
#include <gtest/gtest.h>

#include "compare/mann_whitney.h"

namespace fa2b {
namespace {

// Reference values from scipy 1.17.1:
//   scipy.stats.mannwhitneyu(x, y, alternative='two-sided', method='asymptotic')
// (statistic is U of x, pvalue two-sided; method='asymptotic' because compare always uses the
// normal approximation, see mann_whitney.h).
struct Reference {
  const char* name;
  std::vector<double> x, y;
  double u, p;
};

const Reference kReferences[] = {
    {"shifted",
     {1.00, 1.02, 0.99, 1.01, 1.03, 0.98, 1.00, 1.02, 1.01, 0.99},
     {1.05, 1.07, 1.04, 1.06, 1.08, 1.03, 1.05, 1.07, 1.06, 1.04},
     0.5,
     0.0002018831558110027},
    {"overlap",
     {1.0, 1.1, 0.9, 1.05, 0.95, 1.02, 0.98, 1.01, 0.99},
     {1.01, 1.09, 0.92, 1.04, 0.96, 1.03, 0.97, 1.0, 1.02},
     37.5,
     0.8250161936825618},
    {"ties",
     {1, 1, 2, 2, 3, 3, 3, 4, 4, 5},
     {2, 3, 3, 4, 4, 4, 5, 5, 6, 6, 7},
     23.0,
     0.024128709641961253},
    {"unequal sizes",
     {0.5, 0.6, 0.55, 0.7, 0.65, 0.52, 0.58, 0.61, 0.59, 0.66, 0.54, 0.57},
     {0.6, 0.72, 0.68, 0.75, 0.7, 0.66, 0.69, 0.71, 0.73},
     8.5,
     0.001368896382960939},
};

TEST(MannWhitney, MatchesScipyAsymptotic) {
  for (const Reference& ref : kReferences) {
    const UTestResult r = mann_whitney_u(ref.x, ref.y);
    EXPECT_DOUBLE_EQ(r.u, ref.u) << ref.name;
    EXPECT_NEAR(r.p, ref.p, 1e-12 + 1e-9 * ref.p) << ref.name;
  }
}

TEST(MannWhitney, SymmetricInItsSides) {
  const Reference& ref = kReferences[2];
  const UTestResult ab = mann_whitney_u(ref.x, ref.y);
  const UTestResult ba = mann_whitney_u(ref.y, ref.x);
  EXPECT_NEAR(ab.p, ba.p, 1e-15);
  EXPECT_DOUBLE_EQ(ab.u + ba.u, static_cast<double>(ref.x.size() * ref.y.size()));
}

TEST(MannWhitney, AllEqualOrEmptyIsNoEvidence) {
  // scipy gives p = 1.0 for nine 1.0s against nine 1.0s.
  EXPECT_EQ(mann_whitney_u(std::vector<double>(9, 1.0), std::vector<double>(9, 1.0)).p, 1.0);
  EXPECT_EQ(mann_whitney_u({}, {1.0, 2.0}).p, 1.0);
}

}  // namespace
}  // namespace fa2b
