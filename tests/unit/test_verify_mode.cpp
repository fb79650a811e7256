// SPDX-License-Identifier: Apache-2.0
// measure.verify (sample | full | none): parsing and its errors, what the runner checks under
// each on the host platform, the results file's echo of it, and that a check on the accuracy
// of an unverified case is an error, never a pass.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "checks/checks.h"
#include "config/config.h"
#include "config_errors.h"
#include "io/results_json.h"
#include "runner/case_runner.h"
#include "runner/case_verify.h"
#include "runner/platform.h"

namespace fa2b {
namespace {

using nlohmann::json;
using test_config::errors_of;
using test_config::has_error;

json base() {
  return json{{"name", "t"},
              {"sweeps",
               {{{"name", "s"},
                 {"backends", {"cpu-flash"}},
                 {"grid", {{"B", 1}, {"H", 2}, {"T", 17}, {"D", 32}, {"dtype", "fp16"}}}}}}};
}

TEST(VerifyMode, DefaultIsSampleAndTheConfigSetsIt) {
  json j = base();
  EXPECT_EQ(parse_config(j, "t.json").cases[0].measure.verify, VerifyMode::sample);
  j["measure"] = {{"verify", "full"}};
  EXPECT_EQ(parse_config(j, "t.json").cases[0].measure.verify, VerifyMode::full);
  j["sweeps"][0]["measure"] = {{"verify", "none"}};
  EXPECT_EQ(parse_config(j, "t.json").cases[0].measure.verify, VerifyMode::none);
}

TEST(VerifyMode, BadValuesNameTheField) {
  json j = base();
  j["measure"] = {{"verify", "ful"}};
  EXPECT_TRUE(has_error(j,
                        "/measure/verify: unknown verification \"ful\" (did you mean \"full\"?); "
                        "allowed: sample, full, none"));
  j["measure"] = {{"verify", true}};
  EXPECT_TRUE(
      has_error(j, "/measure/verify: unknown verification true; allowed: sample, full, none"));
  j["measure"] = json::object();
  j["sweeps"][0]["measure"] = {{"verify", "all"}};
  EXPECT_TRUE(has_error(j, "/sweeps/0/measure/verify: unknown verification \"all\""));
}

TEST(VerifyMode, StringsRoundTrip) {
  for (VerifyMode v : {VerifyMode::sample, VerifyMode::full, VerifyMode::none})
    EXPECT_EQ(parse_verify_mode(to_string(v)), v);
  EXPECT_FALSE(parse_verify_mode("Sample"));
}

Case cpu_case(Mode mode, VerifyMode verify, std::int64_t T) {
  Case c;
  c.sweep = "test";
  c.backend = c.role = "cpu-flash";
  c.B = 2;
  c.H = 4;
  c.H_kv = 2;
  c.T_q = c.T_k = T;
  c.D = 32;
  c.dtype = DType::fp16;
  c.causal = true;
  c.mode = mode;
  c.measure.warmup = 0;
  c.measure.min_samples = 2;
  c.measure.max_samples = 2;
  c.measure.verify_rows = 16;
  c.measure.verify = verify;
  return c;
}

TEST(VerifyMode, RowsPerMode) {
  const Case sample = cpu_case(Mode::fwd_bwd, VerifyMode::sample, 100);
  EXPECT_LE(verify_query_rows(sample).size(), 16u);
  EXPECT_LE(verify_key_rows(sample).size(), 16u);
  const Case full = cpu_case(Mode::fwd_bwd, VerifyMode::full, 100);
  EXPECT_EQ(verify_query_rows(full).size(), 2u * 4u * 100u);
  EXPECT_EQ(verify_key_rows(full).size(), 2u * 2u * 100u);
  const Case none = cpu_case(Mode::fwd_bwd, VerifyMode::none, 100);
  EXPECT_TRUE(verify_query_rows(none).empty());
  EXPECT_TRUE(verify_key_rows(none).empty());
}

TEST(VerifyMode, RunnerChecksWhatTheModeSays) {
  auto platform = make_host_platform();
  auto backend = make_backend("cpu-flash");
  ASSERT_NE(backend, nullptr);

  const CaseResult sample =
      run_case(cpu_case(Mode::fwd_bwd, VerifyMode::sample, 40), *backend, *platform);
  ASSERT_EQ(sample.status, Status::ok) << sample.reason;
  EXPECT_TRUE(sample.accuracy.checked);
  EXPECT_TRUE(sample.accuracy.grads_checked);
  EXPECT_LE(sample.accuracy.rows_checked, 16);

  const CaseResult full =
      run_case(cpu_case(Mode::fwd_bwd, VerifyMode::full, 40), *backend, *platform);
  ASSERT_EQ(full.status, Status::ok) << full.reason;
  EXPECT_TRUE(full.accuracy.checked);
  EXPECT_EQ(full.accuracy.rows_checked, 2 * 4 * 40);
  EXPECT_EQ(full.accuracy.key_rows_checked, 2 * 2 * 40);
  EXPECT_LT(full.accuracy.max_abs_err, 2e-3);
  for (Grad g : kGrads) EXPECT_LT(full.accuracy.of(g).max_abs_err, 2e-2) << to_string(g);

  const CaseResult none =
      run_case(cpu_case(Mode::fwd_bwd, VerifyMode::none, 40), *backend, *platform);
  ASSERT_EQ(none.status, Status::ok) << none.reason;
  EXPECT_FALSE(none.accuracy.checked);
  EXPECT_FALSE(none.accuracy.grads_checked);
  EXPECT_EQ(none.accuracy.rows_checked, 0);
  EXPECT_EQ(none.accuracy.key_rows_checked, 0);
  EXPECT_GE(none.time.n, 2);  // still timed
}

TEST(VerifyMode, AccuracyChecksOnUnverifiedCasesAreErrors) {
  auto platform = make_host_platform();
  auto backend = make_backend("cpu-flash");
  ResultSet rs;
  rs.cases.push_back(run_case(cpu_case(Mode::fwd, VerifyMode::none, 17), *backend, *platform));
  ASSERT_EQ(rs.cases[0].status, Status::ok) << rs.cases[0].reason;
  for (const char* metric : {"max_abs_err", "rel_l2_err", "nonfinite"}) {
    CheckSpec spec;
    spec.name = std::string("acc_") + metric;
    spec.kind = "threshold";
    spec.metric = metric;
    spec.op = "<";
    spec.value = 1e-2;
    const std::vector<Verdict> v = evaluate_checks({spec}, rs.cases);
    ASSERT_EQ(v.size(), 1u);
    EXPECT_EQ(v[0].verdict, VerdictKind::error) << metric << ": " << v[0].detail;
    EXPECT_NE(v[0].detail.find("not verified"), std::string::npos) << v[0].detail;
  }
}

TEST(VerifyMode, ResultsEchoAndLoadIt) {
  auto platform = make_host_platform();
  auto backend = make_backend("cpu-flash");
  ResultSet rs;
  // One shape under two verification modes: two sweeps, since a set holds each (sweep, id) once.
  Case unverified = cpu_case(Mode::fwd, VerifyMode::none, 17);
  unverified.sweep = "unverified";
  Case sampled = cpu_case(Mode::fwd, VerifyMode::sample, 17);
  sampled.sweep = "sampled";
  rs.cases.push_back(run_case(unverified, *backend, *platform));
  rs.cases.push_back(run_case(sampled, *backend, *platform));
  const std::string path =
      (std::filesystem::temp_directory_path() / "fa2bench_verify_mode_results.json").string();
  write_results_json(rs, path);
  const ResultSet back = load_results(path);
  std::remove(path.c_str());
  ASSERT_EQ(back.cases.size(), 2u);
  EXPECT_EQ(back.cases[0].c.measure.verify, VerifyMode::none);
  EXPECT_FALSE(back.cases[0].accuracy.checked);
  EXPECT_EQ(back.cases[1].c.measure.verify, VerifyMode::sample);
  EXPECT_TRUE(back.cases[1].accuracy.checked);
}

}  // namespace
}  // namespace fa2b
