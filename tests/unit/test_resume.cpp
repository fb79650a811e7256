// SPDX-License-Identifier: Apache-2.0
// Resume, shards and interruption: the sweep runner's bookkeeping, on the host platform.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "backends/backend.h"
#include "config/config.h"
#include "io/results_json.h"
#include "runner/resume.h"
#include "runner/shard.h"
#include "runner/sweep_runner.h"

namespace fa2b {
namespace {

Case tiny(const std::string& sweep, std::int64_t T) {
  Case c;
  c.sweep = sweep;
  c.backend = c.role = "cpu-flash";
  c.B = 1;
  c.H = c.H_kv = 1;
  c.T_q = c.T_k = T;
  c.D = 16;
  c.measure.warmup = 0;
  c.measure.min_samples = 1;
  c.measure.max_samples = 1;
  return c;
}

std::string temp_dir(const std::string& name) {
  const auto p = std::filesystem::temp_directory_path() /
                 ("fa2bench_test_" + name + "_" +
                  std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p.string();
}

void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string line_of(const Case& c) {
  CaseResult r;
  r.c = c;
  r.target = "cpu";
  return to_json(r).dump();
}

TEST(Shard, ParsesIOverN) {
  ASSERT_TRUE(parse_shard("0/1"));
  EXPECT_EQ(parse_shard("3/8")->index, 3);
  EXPECT_EQ(parse_shard("3/8")->count, 8);
  for (const char* bad : {"", "1", "8/8", "9/8", "-1/4", "1/0", "a/b", "1/4/2", " 1/4", "1/4x"})
    EXPECT_FALSE(parse_shard(bad)) << bad;
  EXPECT_EQ(to_string(Shard{2, 5}), "2/5");
}

TEST(Shard, SlicesAreDisjointAndCoverEveryCaseInOrder) {
  std::vector<Case> cases;
  for (int t = 1; t <= 11; ++t) cases.push_back(tiny("s", t));
  std::vector<std::int64_t> seen;
  for (int i = 0; i < 3; ++i) {
    const auto part = shard_cases(cases, Shard{i, 3});
    for (std::size_t k = 0; k < part.size(); ++k) {
      EXPECT_EQ(part[k].T_q, static_cast<std::int64_t>(1 + i + 3 * k));  // index % 3 == i
      seen.push_back(part[k].T_q);
    }
  }
  std::sort(seen.begin(), seen.end());
  ASSERT_EQ(seen.size(), cases.size());
  for (std::size_t k = 0; k < seen.size(); ++k)
    EXPECT_EQ(seen[k], static_cast<std::int64_t>(k + 1));
  EXPECT_TRUE(shard_cases(cases, Shard{0, 20}).size() == 1);
}

TEST(Resume, TruncatedLastLineIsIgnoredWithAWarning) {
  const std::string dir = temp_dir("jsonl_trunc");
  const std::string second = line_of(tiny("s", 2));
  write(dir + "/r.jsonl",
        line_of(tiny("s", 1)) + "\n" + second + "\n" + second.substr(0, second.size() / 2));
  const JsonlContents got = read_results_jsonl(dir + "/r.jsonl");
  ASSERT_EQ(got.results.size(), 2u);
  EXPECT_EQ(got.results[1].c.T_q, 2);
  ASSERT_EQ(got.warnings.size(), 1u);
  EXPECT_NE(got.warnings[0].find("line 3 is incomplete"), std::string::npos) << got.warnings[0];
  EXPECT_EQ(got.lines[1], second);
}

TEST(Resume, BadLineInTheMiddleIsAnError) {
  const std::string dir = temp_dir("jsonl_bad");
  write(dir + "/r.jsonl", line_of(tiny("s", 1)) + "\n{\"oops\n" + line_of(tiny("s", 2)) + "\n");
  try {
    read_results_jsonl(dir + "/r.jsonl");
    FAIL() << "expected ResultsFileError";
  } catch (const ResultsFileError& e) {
    EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
  }
}

TEST(Resume, MissingJsonlReadsAsEmpty) {
  EXPECT_TRUE(read_results_jsonl("/nonexistent/fa2bench/r.jsonl").results.empty());
}

TEST(Resume, MatchesBySweepAndIdEachResultOnce) {
  const std::vector<Case> cases = {tiny("a", 1), tiny("b", 1), tiny("a", 2), tiny("a", 1)};
  CaseResult r1, r2, r3;
  r1.c = tiny("a", 1);
  r1.reason = "first";
  r2.c = tiny("a", 1);
  r2.reason = "second";
  r3.c = tiny("c", 9);
  std::size_t unmatched = 0;
  const auto m = match_finished(cases, {r1, r2, r3}, &unmatched);
  ASSERT_EQ(m.size(), 4u);
  ASSERT_TRUE(m[0]);
  EXPECT_EQ(m[0]->reason, "first");
  EXPECT_FALSE(m[1]);  // other sweep, same shape
  EXPECT_FALSE(m[2]);
  ASSERT_TRUE(m[3]);
  EXPECT_EQ(m[3]->reason, "second");
  EXPECT_EQ(unmatched, 1u);
}

TEST(Resume, ManifestRoundTrips) {
  const std::string dir = temp_dir("manifest");
  SweepManifest m;
  m.config_path = "configs/x.json";
  m.config_file = "/abs/configs/x.json";
  m.config_sha256 = "abc";
  m.set = {"grid.T=[1]"};
  m.backends = {"fa2"};
  m.inputs = "nan";
  m.filter = "T1-";
  m.shard = Shard{1, 4};
  m.requested_target = "auto";
  m.target = "cpu";
  m.case_ids = {"x", "y"};
  write_manifest(m, dir + "/sweep.json");
  const SweepManifest back = read_manifest(dir + "/sweep.json");
  EXPECT_EQ(back.config_file, m.config_file);
  EXPECT_EQ(back.config_sha256, "abc");
  EXPECT_EQ(back.set, m.set);
  EXPECT_EQ(back.backends, m.backends);
  EXPECT_EQ(back.inputs, "nan");
  EXPECT_EQ(back.filter, "T1-");
  ASSERT_TRUE(back.shard);
  EXPECT_EQ(back.shard->index, 1);
  EXPECT_EQ(back.shard->count, 4);
  EXPECT_EQ(back.target, "cpu");
  EXPECT_EQ(back.case_ids, m.case_ids);
  EXPECT_THROW(read_manifest(dir + "/missing.json"), ResultsFileError);
  write(dir + "/other.json", "{\"schema\": \"something else\"}");
  EXPECT_THROW(read_manifest(dir + "/other.json"), ResultsFileError);
}

Config tiny_config() {
  Config cfg;
  cfg.path = "<test>";
  cfg.sha256 = "0";
  return cfg;
}

TEST(SweepRunner, FinishedCasesAreNotRunAgainAndOrderIsKept) {
  const std::vector<Case> cases = {tiny("s", 3), tiny("s", 5), tiny("s", 7)};
  auto platform = make_host_platform();
  SweepOptions opt;
  opt.progress = false;
  opt.finished.resize(3);
  CaseResult earlier;
  earlier.c = cases[1];
  earlier.reason = "from the first run";
  opt.finished[1] = earlier;
  const ResultSet rs = run_sweep(source_of(tiny_config()), cases, *platform, opt);
  ASSERT_EQ(rs.cases.size(), 3u);
  EXPECT_FALSE(rs.interrupted);
  EXPECT_EQ(rs.cases[0].c.T_q, 3);
  EXPECT_EQ(rs.cases[1].reason, "from the first run");
  EXPECT_EQ(rs.cases[2].c.T_q, 7);
  EXPECT_EQ(rs.cases[2].status, Status::ok) << rs.cases[2].reason;
}

TEST(SweepRunner, StopBetweenCasesMarksTheSetInterrupted) {
  const std::vector<Case> cases = {tiny("s", 3), tiny("s", 5), tiny("s", 7)};
  auto platform = make_host_platform();
  const std::string dir = temp_dir("stop");
  SweepOptions opt;
  opt.progress = false;
  opt.jsonl_path = dir + "/results.jsonl";
  int polls = 0;
  opt.stop_requested = [&] { return ++polls > 2; };  // stop before the third case
  opt.shard = Shard{0, 1};
  const ResultSet rs = run_sweep(source_of(tiny_config()), cases, *platform, opt);
  EXPECT_TRUE(rs.interrupted);
  ASSERT_EQ(rs.cases.size(), 2u);
  EXPECT_EQ(read_results_jsonl(opt.jsonl_path).results.size(), 2u);
  const auto j = to_json(rs);
  EXPECT_EQ(j["interrupted"], true);
  EXPECT_EQ(j["shard"]["index"], 0);
  EXPECT_EQ(j["shard"]["count"], 1);
}

}  // namespace
}  // namespace fa2b
