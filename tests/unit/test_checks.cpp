// SPDX-License-Identifier: Apache-2.0
// Check evaluation: every kind's pass, fail and error paths over hand-built results.
#include <gtest/gtest.h>

#include <cmath>

#include "checks/checks.h"
#include "core/shape_algebra.h"

namespace fa2b {
namespace {

CaseResult make_case(const std::string& backend, std::int64_t T, double median_ms = 1.0,
                     std::int64_t peak = 1000, double max_err = 1e-4) {
  CaseResult r;
  r.c.sweep = "seed";
  r.c.backend = backend;
  r.c.role = backend;
  r.c.B = 1;
  r.c.H = 32;
  r.c.H_kv = 32;
  r.c.T_q = T;
  r.c.T_k = T;
  r.c.D = 128;
  r.c.dtype = DType::fp16;
  r.c.causal = true;
  r.target = "cuda";
  r.status = Status::ok;
  r.time.median = r.time.mean = r.time.min = r.time.max = r.time.p10 = r.time.p90 = median_ms;
  r.time.stdev = 0;
  r.time.n = 10;
  r.time.first_ms = median_ms * 2;
  r.flops = attention_flops(r.c);
  r.tflops = r.flops / (median_ms * 1e-3) / 1e12;
  r.gbps = 1.0;
  r.memory.peak_bytes = peak;
  r.memory.predicted_bytes = peak;
  r.accuracy.checked = true;
  r.accuracy.max_abs_err = max_err;
  r.accuracy.mean_abs_err = max_err / 10;
  r.accuracy.rel_l2_err = max_err / 5;
  r.accuracy.rows_checked = 256;
  return r;
}

CaseResult oom_case(const std::string& backend, std::int64_t T) {
  CaseResult r = make_case(backend, T);
  r.status = Status::oom;
  r.reason = "needs 12.0 GiB, budget 8.0 GiB";
  r.time = TimeStats{};
  r.tflops = kNaN;
  r.accuracy = Accuracy{};
  r.memory.peak_bytes = 0;
  r.memory.requested_bytes = 12LL << 30;
  return r;
}

CheckSpec spec(const std::string& kind, const std::string& metric, const std::string& op,
               double value) {
  CheckSpec s;
  s.name = kind + "_check";
  s.kind = kind;
  s.metric = metric;
  s.op = op;
  s.value = value;
  return s;
}

Verdict eval1(const CheckSpec& s, const std::vector<CaseResult>& results) {
  const auto v = evaluate_checks({s}, results);
  EXPECT_EQ(v.size(), 1u);
  return v.at(0);
}

// ---- threshold ------------------------------------------------------------------------------

TEST(CheckThreshold, PassReportsWorstValueAndCase) {
  std::vector<CaseResult> rs = {make_case("fa2", 512, 1, 1, 2e-4),
                                make_case("fa2", 1024, 1, 1, 7e-4),
                                make_case("fa2", 2048, 1, 1, 3e-4)};
  const Verdict v = eval1(spec("threshold", "max_abs_err", "<", 1e-3), rs);
  EXPECT_EQ(v.verdict, VerdictKind::pass) << v.detail;
  EXPECT_DOUBLE_EQ(v.measured, 7e-4);
  EXPECT_EQ(v.threshold, "< 0.001");
  EXPECT_NE(v.detail.find(rs[1].c.id()), std::string::npos) << v.detail;
  EXPECT_EQ(v.kind, "threshold");
  EXPECT_EQ(v.name, "threshold_check");
}

TEST(CheckThreshold, FailNamesWorstCase) {
  std::vector<CaseResult> rs = {make_case("fa2", 512, 1, 1, 2e-3),
                                make_case("fa2", 1024, 1, 1, 5e-3)};
  const Verdict v = eval1(spec("threshold", "max_abs_err", "<", 1e-3), rs);
  EXPECT_EQ(v.verdict, VerdictKind::fail);
  EXPECT_DOUBLE_EQ(v.measured, 5e-3);
  EXPECT_NE(v.detail.find(rs[1].c.id()), std::string::npos) << v.detail;
  EXPECT_NE(v.detail.find("2 of 2"), std::string::npos) << v.detail;
}

TEST(CheckThreshold, GreaterThanTakesMinimum) {
  std::vector<CaseResult> rs = {make_case("fa2", 512, 1.0), make_case("fa2", 1024, 4.0)};
  rs[0].tflops = 150;
  rs[1].tflops = 90;
  const Verdict v = eval1(spec("threshold", "tflops", ">=", 100), rs);
  EXPECT_EQ(v.verdict, VerdictKind::fail);
  EXPECT_DOUBLE_EQ(v.measured, 90);
}

TEST(CheckThreshold, OomCaseIsAnErrorNamingCaseAndReason) {
  std::vector<CaseResult> rs = {make_case("fa2", 512), oom_case("fa2", 32768)};
  const Verdict v = eval1(spec("threshold", "max_abs_err", "<", 1e-3), rs);
  EXPECT_EQ(v.verdict, VerdictKind::error);
  EXPECT_NE(v.detail.find(rs[1].c.id()), std::string::npos) << v.detail;
  EXPECT_NE(v.detail.find("oom"), std::string::npos) << v.detail;
  EXPECT_NE(v.detail.find("needs 12.0 GiB"), std::string::npos) << v.detail;
}

TEST(CheckThreshold, UnverifiedCaseIsAnError) {
  std::vector<CaseResult> rs = {make_case("fa2", 512)};
  rs[0].accuracy.checked = false;
  const Verdict v = eval1(spec("threshold", "max_abs_err", "<", 1e-3), rs);
  EXPECT_EQ(v.verdict, VerdictKind::error);
  EXPECT_NE(v.detail.find("not verified"), std::string::npos) << v.detail;
}

TEST(CheckThreshold, NoSelectedCaseIsAnError) {
  std::vector<CaseResult> rs = {make_case("fa2", 512)};
  CheckSpec s = spec("threshold", "max_abs_err", "<", 1e-3);
  s.select.match["backend"] = {"cudnn"};
  const Verdict v = eval1(s, rs);
  EXPECT_EQ(v.verdict, VerdictKind::error);
  EXPECT_NE(v.detail.find("no case matches the selection"), std::string::npos) << v.detail;
  EXPECT_NE(v.detail.find("cudnn"), std::string::npos) << v.detail;
}

TEST(CheckThreshold, SelectorRestrictsCases) {
  std::vector<CaseResult> rs = {make_case("fa2", 512, 1, 1, 1e-4),
                                make_case("naive", 512, 1, 1, 9e-3)};
  CheckSpec s = spec("threshold", "max_abs_err", "<", 1e-3);
  s.select.match["backend"] = {"fa2"};
  EXPECT_EQ(eval1(s, rs).verdict, VerdictKind::pass);
}

TEST(CheckThreshold, InfiniteErrorFails) {
  std::vector<CaseResult> rs = {make_case("fa2", 512, 1, 1, INFINITY)};
  const Verdict v = eval1(spec("threshold", "max_abs_err", "<", 1e-3), rs);
  EXPECT_EQ(v.verdict, VerdictKind::fail);
  EXPECT_TRUE(std::isinf(v.measured));
}

// ---- ratio ----------------------------------------------------------------------------------

TEST(CheckRatio, PassAndWorstPair) {
  std::vector<CaseResult> rs = {make_case("naive", 1024, 4.0), make_case("fa2", 1024, 1.0),
                                make_case("naive", 2048, 9.0), make_case("fa2", 2048, 2.0)};
  CheckSpec s = spec("ratio", "time_median_ms", ">=", 3);
  s.numerator = "naive";
  s.denominator = "fa2";
  const Verdict v = eval1(s, rs);
  EXPECT_EQ(v.verdict, VerdictKind::pass) << v.detail;
  EXPECT_DOUBLE_EQ(v.measured, 4.0);  // min of 4.0 and 4.5
  EXPECT_NE(v.detail.find("T1024"), std::string::npos) << v.detail;
}

TEST(CheckRatio, FailWhenAPairIsBelow) {
  std::vector<CaseResult> rs = {make_case("naive", 2048, 5.0), make_case("fa2", 2048, 2.0)};
  CheckSpec s = spec("ratio", "time_median_ms", ">=", 3);
  s.numerator = "naive";
  s.denominator = "fa2";
  const Verdict v = eval1(s, rs);
  EXPECT_EQ(v.verdict, VerdictKind::fail);
  EXPECT_DOUBLE_EQ(v.measured, 2.5);
}

TEST(CheckRatio, PartnerOutsideTheSelectionIsFound) {
  std::vector<CaseResult> rs = {make_case("naive", 2048, 1, 8000), make_case("fa2", 2048, 1, 1000)};
  CheckSpec s = spec("ratio", "peak_bytes", "<", 1);
  s.numerator = "fa2";
  s.denominator = "naive";
  s.select.match["backend"] = {"fa2"};
  const Verdict v = eval1(s, rs);
  EXPECT_EQ(v.verdict, VerdictKind::pass) << v.detail;
  EXPECT_DOUBLE_EQ(v.measured, 0.125);
}

TEST(CheckRatio, MissingPartnerIsAnError) {
  std::vector<CaseResult> rs = {make_case("naive", 1024), make_case("fa2", 1024),
                                make_case("naive", 2048)};
  CheckSpec s = spec("ratio", "time_median_ms", ">=", 1);
  s.numerator = "naive";
  s.denominator = "fa2";
  const Verdict v = eval1(s, rs);
  EXPECT_EQ(v.verdict, VerdictKind::error);
  EXPECT_NE(v.detail.find("no fa2 case with the shape of naive/B1-H32-T2048-D128/fp16/causal"),
            std::string::npos)
      << v.detail;
}

TEST(CheckRatio, OomNumeratorIsAnError) {
  std::vector<CaseResult> rs = {oom_case("naive", 32768), make_case("fa2", 32768)};
  CheckSpec s = spec("ratio", "time_median_ms", ">=", 3);
  s.numerator = "naive";
  s.denominator = "fa2";
  const Verdict v = eval1(s, rs);
  EXPECT_EQ(v.verdict, VerdictKind::error);
  EXPECT_NE(v.detail.find("is oom"), std::string::npos) << v.detail;
}

TEST(CheckRatio, NoNumeratorInSelectionIsAnError) {
  std::vector<CaseResult> rs = {make_case("fa2", 1024)};
  CheckSpec s = spec("ratio", "time_median_ms", ">=", 3);
  s.numerator = "naive";
  s.denominator = "fa2";
  EXPECT_EQ(eval1(s, rs).verdict, VerdictKind::error);
}

TEST(CheckRatio, DifferentShapesDoNotPair) {
  std::vector<CaseResult> rs = {make_case("naive", 1024), make_case("fa2", 1024)};
  rs[1].c.D = 64;
  CheckSpec s = spec("ratio", "time_median_ms", ">=", 0.5);
  s.numerator = "naive";
  s.denominator = "fa2";
  EXPECT_EQ(eval1(s, rs).verdict, VerdictKind::error);
}

// ---- growth ---------------------------------------------------------------------------------

TEST(CheckGrowth, PassAndFailOverGroups) {
  std::vector<CaseResult> rs = {make_case("fa2", 512, 1, 1000), make_case("fa2", 2048, 1, 4000),
                                make_case("naive", 512, 1, 1000),
                                make_case("naive", 2048, 1, 16000)};
  CheckSpec s = spec("growth", "peak_bytes", "<=", 6);
  s.axis = "T";
  s.from = 512;
  s.to = 2048;
  s.select.match["backend"] = {"fa2"};
  Verdict v = eval1(s, rs);
  EXPECT_EQ(v.verdict, VerdictKind::pass) << v.detail;
  EXPECT_DOUBLE_EQ(v.measured, 4.0);

  s.select.match.clear();
  v = eval1(s, rs);
  EXPECT_EQ(v.verdict, VerdictKind::fail) << v.detail;
  EXPECT_DOUBLE_EQ(v.measured, 16.0);
  EXPECT_NE(v.detail.find("naive/"), std::string::npos) << v.detail;
}

TEST(CheckGrowth, GroupsByOtherParameters) {
  std::vector<CaseResult> rs = {make_case("fa2", 512, 1, 1000), make_case("fa2", 2048, 1, 2000)};
  CaseResult d64a = make_case("fa2", 512, 1, 100), d64b = make_case("fa2", 2048, 1, 500);
  d64a.c.D = d64b.c.D = 64;
  rs.push_back(d64a);
  rs.push_back(d64b);
  CheckSpec s = spec("growth", "peak_bytes", "<=", 6);
  s.axis = "T";
  s.from = 512;
  s.to = 2048;
  const Verdict v = eval1(s, rs);
  EXPECT_EQ(v.verdict, VerdictKind::pass) << v.detail;
  EXPECT_DOUBLE_EQ(v.measured, 5.0);
}

TEST(CheckGrowth, MissingEndpointIsAnError) {
  std::vector<CaseResult> rs = {make_case("fa2", 512)};
  CheckSpec s = spec("growth", "peak_bytes", "<=", 6);
  s.axis = "T";
  s.from = 512;
  s.to = 2048;
  const Verdict v = eval1(s, rs);
  EXPECT_EQ(v.verdict, VerdictKind::error);
  EXPECT_NE(v.detail.find("T = 2048"), std::string::npos) << v.detail;
}

TEST(CheckGrowth, OomEndpointIsAnError) {
  std::vector<CaseResult> rs = {make_case("naive", 512), oom_case("naive", 32768)};
  CheckSpec s = spec("growth", "peak_bytes", "<=", 6);
  s.axis = "T";
  s.from = 512;
  s.to = 32768;
  EXPECT_EQ(eval1(s, rs).verdict, VerdictKind::error);
}

// ---- status ---------------------------------------------------------------------------------

TEST(CheckStatus, ExpectedOomPasses) {
  std::vector<CaseResult> rs = {oom_case("naive", 32768), make_case("fa2", 32768)};
  CheckSpec s;
  s.name = "naive_ooms";
  s.kind = "status";
  s.expect = "oom";
  s.select.match["backend"] = {"naive"};
  const Verdict v = eval1(s, rs);
  EXPECT_EQ(v.verdict, VerdictKind::pass) << v.detail;
  EXPECT_EQ(v.measured, 0);
}

TEST(CheckStatus, MismatchFailsWithStatusAndReason) {
  std::vector<CaseResult> rs = {make_case("fa2", 1024), oom_case("fa2", 32768)};
  CheckSpec s;
  s.name = "all_ok";
  s.kind = "status";
  s.expect = "ok";
  const Verdict v = eval1(s, rs);
  EXPECT_EQ(v.verdict, VerdictKind::fail);
  EXPECT_EQ(v.measured, 1);
  EXPECT_NE(v.detail.find(rs[1].c.id() + " is oom (expected ok): needs 12.0 GiB"),
            std::string::npos)
      << v.detail;
}

TEST(CheckStatus, NoSelectionIsAnError) {
  CheckSpec s;
  s.kind = "status";
  s.expect = "ok";
  EXPECT_EQ(eval1(s, {}).verdict, VerdictKind::error);
}

// ---- accuracy_rule --------------------------------------------------------------------------

TEST(CheckAccuracyRule, WithinFactorOfBaselinePasses) {
  std::vector<CaseResult> rs = {make_case("naive", 1024, 1, 1, 1e-3),
                                make_case("fa2", 1024, 1, 1, 1.5e-3)};
  CheckSpec s;
  s.name = "fa2_like_naive";
  s.kind = "accuracy_rule";
  s.metric = "max_abs_err";
  s.baseline = "naive";
  const Verdict v = eval1(s, rs);
  EXPECT_EQ(v.verdict, VerdictKind::pass) << v.detail;
  EXPECT_NEAR(v.measured, 1.5e-3 / (2 * 1e-3 + 1e-5), 1e-12);
  EXPECT_EQ(v.threshold, "<= 1");
}

TEST(CheckAccuracyRule, OverTheBoundFails) {
  std::vector<CaseResult> rs = {make_case("naive", 1024, 1, 1, 1e-3),
                                make_case("fa2", 1024, 1, 1, 3e-3)};
  CheckSpec s;
  s.kind = "accuracy_rule";
  s.metric = "max_abs_err";
  s.baseline = "naive";
  const Verdict v = eval1(s, rs);
  EXPECT_EQ(v.verdict, VerdictKind::fail);
  EXPECT_GT(v.measured, 1.0);
}

TEST(CheckAccuracyRule, OomBaselineIsAnError) {
  std::vector<CaseResult> rs = {oom_case("naive", 32768), make_case("fa2", 32768)};
  CheckSpec s;
  s.kind = "accuracy_rule";
  s.metric = "max_abs_err";
  s.baseline = "naive";
  const Verdict v = eval1(s, rs);
  EXPECT_EQ(v.verdict, VerdictKind::error);
  EXPECT_NE(v.detail.find("oom"), std::string::npos) << v.detail;
}

// ---- plan -----------------------------------------------------------------------------------

TEST(CheckPlan, FlashStateOverScoreMatrix) {
  Case c = make_case("fa2", 2048).c;
  c.causal = false;
  EXPECT_EQ(plan_metric_value(c, "flash_state_bytes").value(), 34078720.0);
  EXPECT_EQ(plan_metric_value(c, "score_matrix_bytes").value(), 268435456.0);
  CheckSpec s = spec("plan", "flash_state_bytes", "<", 0.13);
  s.divide_by = "score_matrix_bytes";
  auto v = evaluate_plan_checks({s}, {c});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].verdict, VerdictKind::pass) << v[0].detail;
  EXPECT_NEAR(v[0].measured, 34078720.0 / 268435456.0, 1e-15);
  EXPECT_NEAR(v[0].measured, 0.127, 5e-4);

  s.value = 0.12;
  v = evaluate_plan_checks({s}, {c});
  EXPECT_EQ(v[0].verdict, VerdictKind::fail);
}

TEST(CheckPlan, NoSelectionIsAnErrorAndOnlyPlanChecksRun) {
  CheckSpec plan = spec("plan", "flops", ">", 0);
  plan.select.match["D"] = {256};
  const CheckSpec thr = spec("threshold", "max_abs_err", "<", 1);
  const auto v = evaluate_plan_checks({thr, plan}, {make_case("fa2", 512).c});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].verdict, VerdictKind::error);
  EXPECT_NE(v[0].detail.find("no case matches the selection"), std::string::npos);
}

TEST(CheckPlan, EvaluateChecksIncludesPlanChecksInOrder) {
  std::vector<CaseResult> rs = {make_case("fa2", 2048), oom_case("naive", 32768)};
  CheckSpec plan = spec("plan", "flash_state_bytes", "<", 0.13);
  plan.divide_by = "score_matrix_bytes";
  plan.name = "p";
  CheckSpec thr = spec("threshold", "max_abs_err", "<", 1e-3);
  thr.name = "t";
  thr.select.match["backend"] = {"fa2"};
  CheckSpec st;
  st.name = "s";
  st.kind = "status";
  st.expect = "oom";
  st.select.match["backend"] = {"naive"};
  const auto v = evaluate_checks({thr, plan, st}, rs);
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0].name, "t");
  EXPECT_EQ(v[1].name, "p");
  EXPECT_EQ(v[2].name, "s");
  for (const Verdict& x : v) EXPECT_EQ(x.verdict, VerdictKind::pass) << x.name << ": " << x.detail;
}

TEST(CheckDispatch, UnknownKindIsAnError) {
  CheckSpec s = spec("bogus", "x", "<", 1);
  const Verdict v = eval1(s, {make_case("fa2", 512)});
  EXPECT_EQ(v.verdict, VerdictKind::error);
  EXPECT_NE(v.detail.find("bogus"), std::string::npos);
}

}  // namespace
}  // namespace fa2b
