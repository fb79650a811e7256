// SPDX-License-Identifier: Apache-2.0
// compare on transformer results: matching by id and by --pair shape key, ratios, statuses,
// regressions, and the loader's refusals of unusable files.
#include <gtest/gtest.h>

#include "compare/model_compare.h"
#include "io/model_results.h"
#include "io/results_json.h"
#include "model_compare_fixtures.h"

namespace fa2b {
namespace {

ModelResultSet load(const nlohmann::json& j, const std::string& file = "f.json") {
  return model_result_set_from_json(j, file);
}

CompareOptions pair_options(const std::string& next, const std::string& base) {
  return CompareOptions{0.05, false, {BackendPair{next, base}}, false};
}

TEST(ModelCompare, PairMatchesByShapeKeyWithRatiosAndStatuses) {
  const ModelResultSet peer = load(model_results_json({
      model_case_json("torch-flash", 64, "ok", 1000, 10.0, 400.0),
      model_case_json("torch-flash", 128, "oom", 0, 0, 0),
  }));
  const ModelResultSet ours = load(model_results_json({
      model_case_json("fa2", 64, "ok", 500, 8.0, 500.0),
      model_case_json("fa2", 128, "ok", 900, 16.0, 500.0),
      model_case_json("fa2", 256, "ok", 1800, 32.0, 500.0),
  }));
  const ModelComparison c = compare_model_results(peer, ours, pair_options("fa2", "torch-flash"));
  ASSERT_EQ(c.cases.size(), 2u);
  EXPECT_EQ(c.cases[0].id, "fa2=torch-flash/L2-h64-nh4-V97-B2-T64/fp32/adamw");
  EXPECT_DOUBLE_EQ(c.cases[0].peak_ratio, 0.5);
  EXPECT_DOUBLE_EQ(c.cases[0].step_ratio, 0.8);
  EXPECT_DOUBLE_EQ(c.cases[0].tokens_ratio, 1.25);
  EXPECT_EQ(c.cases[0].verdict, "faster");
  // oom in BASE, ok in NEW: shown as a status change, no ratio, not a regression.
  EXPECT_EQ(c.cases[1].verdict, "oom→ok");
  EXPECT_FALSE(c.cases[1].regression);
  EXPECT_TRUE(std::isnan(c.cases[1].peak_ratio));
  EXPECT_EQ(c.only_new, std::vector<std::string>{"fa2/L2-h64-nh4-V97-B2-T256/fp32/adamw"});
  ASSERT_EQ(c.geomean.size(), 1u);
  EXPECT_EQ(c.geomean[0].n, 1);
  EXPECT_FALSE(c.has_regression());
  const std::string md = model_compare_md_text(c);
  EXPECT_NE(md.find("| fa2 | torch-flash | L2-h64-nh4-V97-B2-T64/fp32/adamw | ok | ok |"),
            std::string::npos)
      << md;
  EXPECT_NE(model_compare_csv_text(c).find(",oom,ok,"), std::string::npos);
}

TEST(ModelCompare, OkToOomAndSlowerAreRegressions) {
  const ModelResultSet base = load(model_results_json({
      model_case_json("fa2", 64, "ok", 500, 8.0, 500.0),
      model_case_json("fa2", 128, "ok", 900, 10.0, 500.0),
  }));
  const ModelResultSet next = load(model_results_json({
      model_case_json("fa2", 64, "oom", 0, 0, 0),
      model_case_json("fa2", 128, "ok", 900, 12.0, 400.0),
  }));
  const ModelComparison c = compare_model_results(base, next, CompareOptions{});
  ASSERT_EQ(c.cases.size(), 2u);
  EXPECT_EQ(c.cases[0].verdict, "ok→oom");
  EXPECT_TRUE(c.cases[0].regression);
  EXPECT_EQ(c.cases[1].verdict, "slower");
  EXPECT_EQ(c.counts.regressions, 2);
  EXPECT_TRUE(c.has_regression());
}

TEST(ModelCompare, InterruptedNewAndMissingCasesFail) {
  nlohmann::json next_json = model_results_json({model_case_json("fa2", 64, "ok", 5, 8, 5)});
  next_json["interrupted"] = true;
  const ModelResultSet base = load(model_results_json({
      model_case_json("fa2", 64, "ok", 5, 8, 5),
      model_case_json("fa2", 128, "ok", 5, 8, 5),
  }));
  const ModelComparison c = compare_model_results(base, load(next_json), CompareOptions{});
  ASSERT_EQ(c.failures.size(), 2u);
  EXPECT_NE(c.failures[0].find("interrupted"), std::string::npos);
  EXPECT_NE(c.failures[1].find("only in BASE"), std::string::npos);
  EXPECT_TRUE(c.has_regression());
}

TEST(ModelResultsLoader, RefusesUnusableFiles) {
  auto refused = [](nlohmann::json j, const std::string& want) {
    try {
      model_result_set_from_json(j, "bad.json");
      ADD_FAILURE() << "accepted; wanted: " << want;
    } catch (const ResultsFileError& e) {
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
    }
  };
  const nlohmann::json good = model_case_json("fa2", 64, "ok", 5, 8, 5);
  nlohmann::json c = good;
  c["timing"].erase("step_ms");
  refused(model_results_json({c}), "/cases/0/timing/step_ms: an ok case needs a step time > 0");
  c = good;
  c["timing"]["step_ms"] = nullptr;  // how nlohmann writes NaN
  refused(model_results_json({c}), "/cases/0/timing/step_ms: expected a number, got null");
  c = good;
  c.erase("memory");
  refused(model_results_json({c}), "/cases/0/memory: missing");
  c = good;
  c["metrics"]["tokens_per_s"] = "fast";
  refused(model_results_json({c}), "/cases/0/metrics/tokens_per_s: expected a number");
  c = good;
  c["status"] = "fine";
  refused(model_results_json({c}), "unknown status \"fine\"");
  c = good;
  c["id"] = "cudnn/x";
  refused(model_results_json({c}), "does not start with its backend \"fa2/\"");
  nlohmann::json doc = model_results_json({good});
  doc["schema_version"] = 2;
  refused(doc, "/schema_version: expected 1");
  doc = model_results_json({good});
  doc.erase("cases");
  refused(doc, "/cases: missing");
  // A case that is not ok may carry zeros or nulls: nothing is judged by them.
  c = model_case_json("fa2", 64, "oom", 0, 0, 0);
  c["timing"]["step_ms"] = nullptr;
  EXPECT_NO_THROW(model_result_set_from_json(model_results_json({c}), "oom.json"));
}

}  // namespace
}  // namespace fa2b
