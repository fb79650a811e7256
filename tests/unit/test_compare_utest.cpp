// SPDX-License-Identifier: Apache-2.0
// compare's Mann-Whitney U rule: where both runs kept enough raw samples it decides whether a
// change beyond the threshold is significant; elsewhere the p10-p90 rule stays.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "compare/compare.h"
#include "compare/mann_whitney.h"
#include "compare_fixtures.h"

namespace fa2b {
namespace {

// A timed case with `n` raw samples spread evenly over median * (1 -/+ spread) and the
// statistics the sweep would have written for them (p10/p90 at median -/+ spread * 0.8).
CaseResult sampled(double median, double spread, int n) {
  CaseResult r = crafted_case("fa2", 1024, 64, median, spread * 0.8, Status::ok, 1000);
  for (int i = 0; i < n; ++i) {
    const double f = n == 1 ? 0 : 2.0 * i / (n - 1) - 1;  // -1 .. 1
    r.time.samples.push_back(median * (1 + spread * f));
  }
  r.time.n = n;
  return r;
}

TEST(CompareUTest, OverlappingIntervalsButSignificantIsSlower) {
  // +10% with p10-p90 intervals that overlap (+-12%): the threshold rule says ambiguous, the U
  // test on 30 samples a side finds the shift significant. This is the behaviour change.
  const CaseResult base = sampled(1.0, 0.15, 30), next = sampled(1.10, 0.15, 30);
  const ChangeVerdict old_rule =
      judge_change(crafted_case("fa2", 1024, 64, 1.0, 0.12, Status::ok, 1),
                   crafted_case("fa2", 1024, 64, 1.1, 0.12, Status::ok, 1), 0.05);
  EXPECT_EQ(old_rule.kind, ChangeKind::ambiguous);
  EXPECT_EQ(old_rule.rule, VerdictRule::threshold);
  EXPECT_TRUE(std::isnan(old_rule.p_value));

  const ChangeVerdict v = judge_change(base, next, 0.05, 0.05);
  EXPECT_TRUE(v.intervals_overlap);
  EXPECT_EQ(v.rule, VerdictRule::utest);
  EXPECT_LT(v.p_value, 0.05);
  EXPECT_EQ(v.kind, ChangeKind::slower);
  EXPECT_TRUE(v.regression);
  // The same samples at a stricter alpha: not significant, so ambiguous.
  const ChangeVerdict strict = judge_change(base, next, 0.05, v.p_value / 2);
  EXPECT_EQ(strict.kind, ChangeKind::ambiguous);
  EXPECT_FALSE(strict.regression);
}

TEST(CompareUTest, DisjointIntervalsButIndistinguishableSamplesAreAmbiguous) {
  // Medians 20% apart with disjoint intervals, but the raw samples are the same: the U test
  // (p = 1) overrules the intervals.
  CaseResult base = crafted_case("fa2", 1024, 64, 1.0, 0.01, Status::ok, 1);
  CaseResult next = crafted_case("fa2", 1024, 64, 1.2, 0.01, Status::ok, 1);
  base.time.samples = next.time.samples = std::vector<double>(kUTestMinSamples, 1.1);
  const ChangeVerdict v = judge_change(base, next, 0.05);
  EXPECT_EQ(v.rule, VerdictRule::utest);
  EXPECT_EQ(v.p_value, 1.0);
  EXPECT_EQ(v.kind, ChangeKind::ambiguous);
}

TEST(CompareUTest, WithinThresholdStaysSameWhateverP) {
  const ChangeVerdict v = judge_change(sampled(1.0, 0.01, 20), sampled(1.03, 0.01, 20), 0.05);
  EXPECT_EQ(v.rule, VerdictRule::utest);
  EXPECT_LT(v.p_value, 0.001);
  EXPECT_EQ(v.kind, ChangeKind::same);
}

TEST(CompareUTest, TooFewSamplesOnOneSideKeepsTheThresholdRule) {
  const ChangeVerdict v =
      judge_change(sampled(1.0, 0.15, kUTestMinSamples - 1), sampled(1.10, 0.15, 30), 0.05);
  EXPECT_EQ(v.rule, VerdictRule::threshold);
  EXPECT_TRUE(std::isnan(v.p_value));
  EXPECT_EQ(v.kind, ChangeKind::ambiguous);  // the intervals overlap
}

TEST(CompareUTest, StatusChangesSayTheirRule) {
  const ChangeVerdict v = judge_change(sampled(1.0, 0.1, 20),
                                       crafted_case("fa2", 1024, 64, 0, 0, Status::oom, 1), 0.05);
  EXPECT_EQ(v.rule, VerdictRule::status);
}

TEST(CompareUTest, FormatsCarryRuleAndPValue) {
  ResultSet base, next;
  base.device = next.device = {{"kind", "cuda"}, {"name", "NVIDIA H200"}};
  base.cases = {sampled(1.0, 0.15, 30)};
  next.cases = {sampled(1.10, 0.15, 30)};
  CompareOptions options;
  options.alpha = 0.01;
  const Comparison c = compare_results(base, "b.json", next, "n.json", options);
  ASSERT_EQ(c.cases.size(), 1u);
  EXPECT_EQ(c.cases[0].rule, VerdictRule::utest);

  const auto j = compare_json(c);
  EXPECT_EQ(j["alpha"], 0.01);
  EXPECT_EQ(j["cases"][0]["rule"], "utest");
  EXPECT_NEAR(j["cases"][0]["p_value"].get<double>(), c.cases[0].p_value, 1e-15);

  const std::string csv = compare_csv_text(c);
  const std::string header = csv.substr(0, csv.find('\n'));
  EXPECT_NE(header.find(",rule,p_value"), std::string::npos) << header;
  EXPECT_NE(csv.find(",utest,"), std::string::npos) << csv;

  const std::string md = compare_md_text(c);
  EXPECT_NE(md.find("| p | rule | verdict |"), std::string::npos) << md;
  EXPECT_NE(md.find("| utest |"), std::string::npos) << md;
  const std::string table = compare_table_text(c);
  EXPECT_NE(table.find("utest"), std::string::npos) << table;
}

}  // namespace
}  // namespace fa2b
