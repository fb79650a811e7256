// SPDX-License-Identifier: Apache-2.0
// Raw timing samples in results files: written in the order taken, read back unchanged, and
// a sweep on the CPU target keeps them.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "core/result.h"
#include "io/results_json.h"

namespace fa2b {
namespace {

ResultSet one_case_with_samples(std::vector<double> samples) {
  ResultSet rs;
  CaseResult r;
  r.c.backend = "cpu-flash";
  r.c.role = "cpu-flash";
  r.c.B = r.c.H = r.c.H_kv = 1;
  r.c.T_q = r.c.T_k = 16;
  r.c.D = 32;
  r.target = "cpu";
  r.time.n = static_cast<int>(samples.size());
  r.time.median = 1.0;
  r.time.samples = std::move(samples);
  rs.cases.push_back(r);
  return rs;
}

TEST(RawSamples, WrittenInOrderAndReadBack) {
  const std::vector<double> taken = {1.25, 0.5, 0.75, 2.0};
  const nlohmann::json j = to_json(one_case_with_samples(taken).cases[0]);
  ASSERT_TRUE(j["time_ms"].contains("samples"));
  EXPECT_EQ(j["time_ms"]["samples"].get<std::vector<double>>(), taken);  // not sorted

  const std::string path =
      (std::filesystem::temp_directory_path() / "fa2bench_raw_samples.json").string();
  write_results_json(one_case_with_samples(taken), path);
  const ResultSet back = load_results(path);
  std::remove(path.c_str());
  ASSERT_EQ(back.cases.size(), 1u);
  EXPECT_EQ(back.cases[0].time.samples, taken);
}

TEST(RawSamples, ThrottleFlagsAndKeepSettingsReadBack) {
  ResultSet rs = one_case_with_samples({1.0, 3.0, 1.1});
  rs.cases[0].c.measure.keep_samples = 3;
  rs.cases[0].c.measure.drop_throttled = true;
  rs.cases[0].time.throttled_at = {1};
  rs.cases[0].time.dropped_throttled = 0;
  const std::string path =
      (std::filesystem::temp_directory_path() / "fa2bench_raw_samples_flags.json").string();
  write_results_json(rs, path);
  const ResultSet back = load_results(path);
  std::remove(path.c_str());
  ASSERT_EQ(back.cases.size(), 1u);
  EXPECT_EQ(back.cases[0].c.measure.keep_samples, 3);
  EXPECT_TRUE(back.cases[0].c.measure.drop_throttled);
  EXPECT_EQ(back.cases[0].time.throttled_at, (std::vector<int>{1}));
  EXPECT_EQ(back.cases[0].time.dropped_throttled, 0);
  EXPECT_TRUE(back.cases[0].time.dropped_throttled_absent.empty());
}

TEST(RawSamples, AbsentWhenNoneWereTaken) {
  const nlohmann::json j = to_json(one_case_with_samples({}).cases[0]);
  EXPECT_FALSE(j["time_ms"].contains("samples"));
}

TEST(RawSamples, ANonNumberIsRefusedNamingThePlace) {
  nlohmann::json j = to_json(one_case_with_samples({1.0, 2.0}));
  j["cases"][0]["time_ms"]["samples"][1] = "fast";
  const std::string path =
      (std::filesystem::temp_directory_path() / "fa2bench_raw_samples_bad.json").string();
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    const std::string text = j.dump();
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  }
  try {
    (void)load_results(path);
    ADD_FAILURE() << "a string sample was accepted";
  } catch (const ResultsFileError& e) {
    EXPECT_NE(std::string(e.what()).find("/time_ms/samples/1"), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
}

}  // namespace
}  // namespace fa2b
