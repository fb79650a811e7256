// SPDX-License-Identifier: Apache-2.0
// Input guards outside the JSON parser: size products in 64 bits, the --out lock and the
// handling of an earlier sweep's files, RE2 filters, the resume manifest's run options,
// duplicate case ids on the cpu target.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "app/out_dir.h"
#include "cli/tables.h"
#include "core/case_regex.h"
#include "core/shape_algebra.h"
#include "runner/resume.h"
#include "runner/sweep_runner.h"

namespace fa2b {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  const auto p =
      fs::temp_directory_path() / ("fa2bench_guard_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

Case shape(std::int64_t T_q, std::int64_t T_k, std::int64_t D) {
  Case c;
  c.backend = c.role = "cpu-flash";
  c.B = 1;
  c.H = c.H_kv = 1;
  c.T_q = T_q;
  c.T_k = T_k;
  c.D = D;
  return c;
}

TEST(SizeProducts, KAndVBeyondTwoToThe63AreRefusedNamingTheProduct) {
  // T_q = 1 kept the old double estimate (B*H*T_q*max(T_k, D)*8) far below the limit.
  std::string why;
  EXPECT_FALSE(sizes_fit_int64(shape(1, 2147483647, 2147483647), &why));
  EXPECT_NE(why.find("K and V (B*H_kv*T_k*D = 1*1*2147483647*2147483647"), std::string::npos)
      << why;
}

TEST(SizeProducts, EveryTermIsChecked) {
  std::string why;
  EXPECT_FALSE(sizes_fit_int64(shape(std::int64_t{1} << 40, 1, std::int64_t{1} << 30), &why));
  EXPECT_NE(why.find("Q and O"), std::string::npos) << why;
  EXPECT_FALSE(sizes_fit_int64(shape(std::int64_t{1} << 31, std::int64_t{1} << 31, 64), &why));
  EXPECT_NE(why.find("score matrix"), std::string::npos) << why;
  EXPECT_FALSE(sizes_fit_int64(shape(1, INT64_MAX, 1), &why));
  EXPECT_FALSE(sizes_fit_int64(shape(1, 1, INT64_MAX), &why));
}

TEST(SizeProducts, LargeButRealShapesFit) {
  EXPECT_TRUE(sizes_fit_int64(shape(131072, 131072, 256), nullptr));
  Case c = shape(65536, 65536, 128);
  c.B = 64;
  c.H = 128;
  EXPECT_TRUE(sizes_fit_int64(c, nullptr));
}

TEST(SizeProducts, ASizeIsNeverPrintedNegative) {
  // plan printed "-8.0 GiB" (and "fits") for a product that had wrapped around.
  EXPECT_EQ(human_bytes(-8.0 * (1 << 30)), "invalid");
  EXPECT_EQ(human_bytes(std::nan("")), "invalid");
  EXPECT_EQ(human_bytes(1536.0), "1.5 KiB");
}

TEST(OutDir, ASecondLockIsRefusedNamingTheHoldersPid) {
  const auto dir = fresh_dir("lock");
  std::string why;
  auto first = OutDirLock::acquire(dir, &why);
  ASSERT_TRUE(first) << why;
  // flock locks belong to open file descriptions: a second open in this process conflicts
  // exactly as another process's would.
  EXPECT_FALSE(OutDirLock::acquire(dir, &why));
  EXPECT_NE(why.find("in use by another sweep (pid " + std::to_string(::getpid()) + ")"),
            std::string::npos)
      << why;
  first.reset();
  EXPECT_TRUE(OutDirLock::acquire(dir, &why)) << why;
  fs::remove_all(dir);
}

TEST(OutDir, EarlierOutputsMoveAsideTogether) {
  const auto dir = fresh_dir("aside");
  for (const char* name : {"sweep.json", "results.jsonl", "results.json", "notes.txt"})
    std::ofstream(dir / name) << "x";
  EXPECT_EQ(existing_sweep_outputs(dir),
            (std::vector<std::string>{"sweep.json", "results.jsonl", "results.json"}));
  const auto aside = move_sweep_outputs_aside(dir);
  EXPECT_EQ(aside.parent_path(), dir);
  EXPECT_EQ(aside.filename().string().rfind("previous-", 0), 0u);
  EXPECT_TRUE(fs::exists(aside / "sweep.json"));
  EXPECT_TRUE(fs::exists(aside / "results.json"));
  EXPECT_TRUE(existing_sweep_outputs(dir).empty());
  EXPECT_TRUE(fs::exists(dir / "notes.txt"));  // not ours: left alone
  // A second move in the same second gets its own folder.
  std::ofstream(dir / "sweep.json") << "y";
  EXPECT_NE(move_sweep_outputs_aside(dir), aside);
  fs::remove_all(dir);
}

TEST(OutDir, ReportsAndStaleWorkDirsAreRemoved) {
  const auto dir = fresh_dir("stale");
  for (const char* name :
       {"sweep.json", "results.jsonl", "results.json", "results.csv", "summary.md"})
    std::ofstream(dir / name) << "x";
  const auto junit = dir / "elsewhere.xml";
  std::ofstream(junit) << "x";
  fs::create_directories(dir / ".isolated-999999" / "sub");
  remove_reports(dir, {junit.string(), ""});
  remove_stale_work_dirs(dir);
  EXPECT_EQ(existing_sweep_outputs(dir), (std::vector<std::string>{"sweep.json", "results.jsonl"}));
  EXPECT_FALSE(fs::exists(junit));
  EXPECT_FALSE(fs::exists(dir / ".isolated-999999"));
  fs::remove_all(dir);
}

TEST(CaseRegexTest, SearchesLikeStdRegexAndRefusesBadPatterns) {
  std::string why;
  const auto re = CaseRegex::compile("T16-|D32$", &why);
  ASSERT_TRUE(re) << why;
  EXPECT_TRUE(re->search("cpu-flash/B1-H2-T16-D16/fp32/causal"));
  EXPECT_FALSE(re->search("cpu-flash/B1-H2-T48-D16/fp32/causal"));
  EXPECT_FALSE(CaseRegex::compile("(unclosed", &why));
  EXPECT_NE(why.find("missing )"), std::string::npos) << why;
}

TEST(CaseRegexTest, CatastrophicPatternRunsInLinearTime) {
  // std::regex backtracks exponentially here (and recurses per character): it hung.
  std::string why;
  const auto re = CaseRegex::compile("(a*)*b", &why);
  ASSERT_TRUE(re) << why;
  EXPECT_FALSE(re->search(std::string(100000, 'a')));
}

TEST(ResumeManifest, RunOptionsRoundTrip) {
  const auto dir = fresh_dir("manifest");
  SweepManifest m;
  m.config_sha256 = "abc";
  m.memory_budget = "1GiB";
  m.case_timeout_s = 2.5;
  m.isolated = true;
  m.dump_dir = "/tmp/d";
  m.dump_filter = "T16";
  write_manifest(m, (dir / "sweep.json").string());
  const SweepManifest back = read_manifest((dir / "sweep.json").string());
  EXPECT_EQ(back.memory_budget, "1GiB");
  EXPECT_EQ(back.case_timeout_s, 2.5);
  EXPECT_EQ(back.isolated, std::optional<bool>(true));
  EXPECT_EQ(back.dump_dir, "/tmp/d");
  EXPECT_EQ(back.dump_filter, "T16");
  fs::remove_all(dir);
}

TEST(ResumeManifest, DeepNestingIsRefusedNotCrashing) {
  const auto dir = fresh_dir("deep_manifest");
  std::ofstream(dir / "sweep.json")
      << "{\"schema\": \"fa2bench/sweep-manifest/1\", \"x\": " << std::string(100000, '[')
      << std::string(100000, ']') << "}";
  try {
    read_manifest((dir / "sweep.json").string());
    ADD_FAILURE() << "no error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("nested deeper than 512"), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

TEST(ResumeJsonl, AnOutOfRangeLastLineIsAnErrorNotATruncation) {
  const auto dir = fresh_dir("jsonl_range");
  std::ofstream(dir / "results.jsonl") << "{\"id\": 1e400}\n";
  EXPECT_THROW(read_results_jsonl((dir / "results.jsonl").string()), std::exception);
  fs::remove_all(dir);
}

TEST(DuplicateCases, Fa2AndCpuFlashCollideOnTheCpuTarget) {
  Case fa2 = shape(16, 16, 16);
  fa2.backend = fa2.role = "fa2";
  Case flash = shape(16, 16, 16);
  const auto cases = cases_for_target({fa2, flash}, "cpu");
  const auto dup = find_duplicate_case(cases);
  ASSERT_TRUE(dup);
  EXPECT_EQ(cases[dup->first].role, "fa2");
  EXPECT_EQ(cases[dup->second].role, "cpu-flash");
  EXPECT_FALSE(find_duplicate_case(cases_for_target({fa2, flash}, "cuda")));
}

}  // namespace
}  // namespace fa2b
