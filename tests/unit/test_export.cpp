// SPDX-License-Identifier: Apache-2.0
// `fa2bench export`: google/benchmark JSON and nvbench markdown, read back by each format's
// rules (the keys and types google/benchmark's compare.py and github-action-benchmark read;
// nvbench's table layout and time units).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "io/results_json.h"
#include "report/export_formats.h"
#include "report/report.h"

namespace fa2b {
namespace {

const std::string kData = std::string(FA2BENCH_SOURCE_DIR) + "/tests/data/compare/";

// A set with one ok case and one oom case, built in the test so every field is known.
ResultSet two_cases() {
  ResultSet rs = load_results(kData + "base.json");
  rs.cases.resize(2);
  rs.cases[1].status = Status::oom;
  rs.cases[1].reason = "out of memory allocating 1024 bytes for naive S";
  return rs;
}

TEST(ExportGbench, ReadsBackWithGoogleBenchmarksKeys) {
  const ResultSet rs = two_cases();
  const nlohmann::json j = nlohmann::json::parse(gbench_json_text(rs));
  ASSERT_TRUE(j.contains("context"));
  ASSERT_TRUE(j.at("context").is_object());
  for (const char* key : {"date", "host_name", "executable", "num_cpus", "library_build_type"}) {
    EXPECT_TRUE(j.at("context").contains(key)) << key;
  }
  const nlohmann::json& b = j.at("benchmarks");
  ASSERT_TRUE(b.is_array());
  ASSERT_EQ(b.size(), rs.cases.size());
  const std::vector<std::string> units = {"ns", "us", "ms", "s"};
  for (std::size_t i = 0; i < b.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(b[i].at("name").get<std::string>(), "fa2bench/" + rs.cases[i].c.id());
    EXPECT_EQ(b[i].at("run_name"), b[i].at("name"));
    EXPECT_EQ(b[i].at("run_type"), "iteration");
    EXPECT_TRUE(b[i].at("real_time").is_number());
    EXPECT_TRUE(b[i].at("cpu_time").is_number());
    EXPECT_TRUE(b[i].at("iterations").is_number_integer());
    EXPECT_NE(std::find(units.begin(), units.end(), b[i].at("time_unit").get<std::string>()),
              units.end());
  }
  EXPECT_DOUBLE_EQ(b[0].at("real_time").get<double>(), rs.cases[0].time.median);
  EXPECT_EQ(b[0].at("time_unit"), "ms");
  EXPECT_EQ(b[0].at("iterations").get<int>(), rs.cases[0].time.n);
  EXPECT_DOUBLE_EQ(b[0].at("tflops").get<double>(), rs.cases[0].tflops);
  EXPECT_EQ(b[0].at("peak_bytes").get<std::int64_t>(), rs.cases[0].memory.peak_bytes);
  EXPECT_FALSE(b[0].contains("error_occurred"));
  EXPECT_TRUE(b[1].at("error_occurred").get<bool>());
  EXPECT_EQ(b[1].at("error_message"), "oom: out of memory allocating 1024 bytes for naive S");
}

TEST(ExportGbench, UnknownMetricsAreLeftOutNotNull) {
  ResultSet rs = two_cases();
  rs.cases[0].tflops = kNaN;
  rs.cases[0].memory.recorded = false;
  const nlohmann::json b = nlohmann::json::parse(gbench_json_text(rs)).at("benchmarks");
  EXPECT_FALSE(b[0].contains("tflops"));
  EXPECT_FALSE(b[0].contains("peak_bytes"));
}

// The table rows of one "## sweep" section.
std::vector<std::vector<std::string>> table_rows(const std::string& md) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(md);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("| ", 0) != 0) continue;
    std::vector<std::string> cells;
    std::string cell;
    std::istringstream l(line.substr(1));
    while (std::getline(l, cell, '|')) {
      const auto a = cell.find_first_not_of(' '), z = cell.find_last_not_of(' ');
      cells.push_back(a == std::string::npos ? "" : cell.substr(a, z - a + 1));
    }
    rows.push_back(cells);
  }
  return rows;
}

TEST(ExportNvbenchMd, LayoutAndUnits) {
  const ResultSet rs = two_cases();
  const std::string md = nvbench_md_text(rs);
  EXPECT_EQ(md.rfind("# Benchmark Results\n", 0), 0u);
  EXPECT_NE(md.find("\n## seed\n"), std::string::npos) << md;
  EXPECT_NE(md.find("### [0] NVIDIA H200"), std::string::npos) << md;
  const auto rows = table_rows(md);
  ASSERT_EQ(rows.size(), 1 + rs.cases.size());  // header + one row per case
  const std::vector<std::string>& header = rows[0];
  const auto col = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  ASSERT_LT(col("GPU Time"), header.size());
  ASSERT_LT(col("Noise"), header.size());
  ASSERT_LT(col("Samples"), header.size());
  for (const auto& r : rows) ASSERT_EQ(r.size(), header.size());
  const std::regex nv_time(R"(\d+\.\d{3} (ns|us|ms|s))");
  EXPECT_TRUE(std::regex_match(rows[1][col("GPU Time")], nv_time)) << rows[1][col("GPU Time")];
  EXPECT_TRUE(std::regex_match(rows[1][col("Noise")], std::regex(R"(\d+\.\d{2}%)")));
  EXPECT_EQ(rows[1][col("Samples")], std::to_string(rs.cases[0].time.n));
  EXPECT_EQ(rows[2][col("GPU Time")], "oom");
}

}  // namespace
}  // namespace fa2b
