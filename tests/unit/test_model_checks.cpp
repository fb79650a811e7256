// SPDX-License-Identifier: Apache-2.0
// Checks over transformer results: status, threshold and ratio with selectors on backend and
// params, verdict error (never a pass) when a number is missing, and the metric names.
#include <gtest/gtest.h>

#include "checks/model_checks.h"
#include "model_compare_fixtures.h"

namespace fa2b {
namespace {

std::vector<ModelCaseRecord> seed_like() {
  // naive ok at T 64 and oom from 128 (with the bytes it asked for); fa2 ok everywhere.
  return model_result_set_from_json(
             model_results_json({model_case_json("naive", 64, "ok", 1000, 10, 100),
                                 model_case_json("fa2", 64, "ok", 300, 8, 120),
                                 model_case_json("naive", 128, "oom", 2000, 0, 0),
                                 model_case_json("fa2", 128, "ok", 500, 16, 110)}),
             "r.json")
      .cases;
}

CheckSpec spec(const std::string& kind, const nlohmann::json& select) {
  CheckSpec s;
  s.name = kind;
  s.kind = kind;
  for (const auto& [axis, v] : select.items())
    s.select.match[axis] =
        v.is_array() ? v.get<std::vector<nlohmann::json>>() : std::vector<nlohmann::json>{v};
  return s;
}

TEST(ModelChecks, StatusBySelectorOnBackendAndT) {
  CheckSpec s = spec("status", {{"backend", "naive"}, {"T", {{"min", 128}}}});
  s.expect = "oom";
  EXPECT_EQ(evaluate_model_checks({s}, seed_like())[0].verdict, VerdictKind::pass);
  s.expect = "ok";
  const Verdict v = evaluate_model_checks({s}, seed_like())[0];
  EXPECT_EQ(v.verdict, VerdictKind::fail);
  EXPECT_NE(v.detail.find("naive/L2-h64-nh4-V97-B2-T128/fp32/adamw is oom (expected ok)"),
            std::string::npos)
      << v.detail;
  s.select.match["T"] = {4096};
  EXPECT_EQ(evaluate_model_checks({s}, seed_like())[0].verdict, VerdictKind::error);
}

TEST(ModelChecks, ThresholdOnStepTimeAndRequestedBytes) {
  CheckSpec s = spec("threshold", {{"backend", "fa2"}});
  s.metric = "step_ms";
  s.op = "<";
  s.value = 20;
  EXPECT_EQ(evaluate_model_checks({s}, seed_like())[0].verdict, VerdictKind::pass);
  s.value = 10;
  const Verdict v = evaluate_model_checks({s}, seed_like())[0];
  EXPECT_EQ(v.verdict, VerdictKind::fail);
  EXPECT_DOUBLE_EQ(v.measured, 16);
  // An oom has no step time: error, not a pass; but it has the bytes it asked for.
  s = spec("threshold", {{"backend", "naive"}});
  s.metric = "loss_last";
  s.op = "<";
  s.value = 100;
  EXPECT_EQ(evaluate_model_checks({s}, seed_like())[0].verdict, VerdictKind::error);
  s = spec("threshold", {{"backend", "naive"}, {"T", 128}});
  s.metric = "requested_bytes";
  s.op = ">";
  s.value = 0;
  EXPECT_EQ(evaluate_model_checks({s}, seed_like())[0].verdict, VerdictKind::pass);
}

TEST(ModelChecks, RatioOfPeaksWhereBothRan) {
  CheckSpec s = spec("ratio", {{"T", 64}});
  s.metric = "peak_bytes";
  s.numerator = "fa2";
  s.denominator = "naive";
  s.op = "<=";
  s.value = 0.35;
  Verdict v = evaluate_model_checks({s}, seed_like())[0];
  EXPECT_EQ(v.verdict, VerdictKind::pass);
  EXPECT_DOUBLE_EQ(v.measured, 0.3);
  // Over every T the oom partner has a peak too (what it held when it failed), but a step
  // time it has not: the ratio of step_ms is an error there.
  s = spec("ratio", nlohmann::json::object());
  s.metric = "step_ms";
  s.numerator = "fa2";
  s.denominator = "naive";
  s.op = "<=";
  s.value = 1;
  v = evaluate_model_checks({s}, seed_like())[0];
  EXPECT_EQ(v.verdict, VerdictKind::error);
  EXPECT_NE(v.detail.find("is oom"), std::string::npos) << v.detail;
}

}  // namespace
}  // namespace fa2b
