// SPDX-License-Identifier: Apache-2.0
// fa2bench merge: shards combine into the unsharded case set, mixed configs are refused,
// duplicates are reported, device blocks are kept, checks are re-evaluated.
#include <gtest/gtest.h>

#include <string>

#include "compare/merge.h"
#include "config/config.h"
#include "io/results_json.h"

namespace fa2b {
namespace {

using nlohmann::json;

const json kConfig = json::parse(R"({
  "name": "merge_test",
  "defaults": {"B": 1, "H": 4, "D": 64, "dtype": "fp16", "causal": true},
  "sweeps": [{"name": "s", "backends": ["naive", "fa2"], "grid": {"T": [64, 128, 256]}}],
  "checks": [
    {"name": "fa2_faster_at_256", "kind": "ratio", "metric": "time_median_ms",
     "numerator": "naive", "denominator": "fa2", "select": {"T": 256}, "op": ">", "value": 1}
  ]
})");

CaseResult result_for(const Case& c, double median) {
  CaseResult r;
  r.c = c;
  r.target = "cuda";
  r.time.median = median;
  r.time.p10 = median;
  r.time.p90 = median;
  r.time.n = 5;
  return r;
}

// The config's cases, each shard taking case index % n == i; naive is 2x slower than fa2.
ResultSet shard(std::size_t i, std::size_t n, const std::string& gpu = "NVIDIA H200",
                const std::string& pci = "0000:01:00.0") {
  const Config cfg = parse_config(kConfig, "merge_test.json");
  ResultSet rs;
  rs.device = {{"kind", "cuda"}, {"name", gpu}, {"index", 0}, {"pci_bus", pci}};
  rs.tool = {{"version", "0.1.0"}};
  rs.target = "cuda";
  rs.config_path = "merge_test.json";
  rs.config_sha256 = cfg.sha256;
  rs.config_echo = cfg.raw;
  rs.wall_s = 1;
  for (std::size_t k = 0; k < cfg.cases.size(); ++k) {
    if (k % n != i) continue;
    const Case& c = cfg.cases[k];
    rs.cases.push_back(result_for(c, (c.backend == "naive" ? 2.0 : 1.0) * c.T_q / 64.0));
  }
  return rs;
}

std::vector<std::string> ids(const ResultSet& rs) {
  std::vector<std::string> out;
  for (const CaseResult& r : rs.cases) out.push_back(r.c.id());
  return out;
}

std::string merge_error(const std::vector<MergeInput>& in, MergeOptions o = {}) {
  try {
    merge_results(in, o);
  } catch (const MergeError& e) {
    return e.what();
  }
  return "";
}

TEST(Merge, ShardsGiveTheUnshardedCaseSetInConfigOrder) {
  const ResultSet whole = shard(0, 1);
  ASSERT_EQ(whole.cases.size(), 6u);
  const MergeOutcome m = merge_results(
      {{"shard-1.json", shard(1, 3)}, {"shard-0.json", shard(0, 3)}, {"shard-2.json", shard(2, 3)}},
      {});
  EXPECT_EQ(ids(m.merged), ids(whole));
  EXPECT_TRUE(m.duplicates.empty());
  EXPECT_TRUE(m.devices.is_null());  // same GPU model: no "devices" list
  EXPECT_TRUE(m.warnings.empty()) << m.warnings[0];
  EXPECT_DOUBLE_EQ(m.merged.wall_s, 3.0);
  EXPECT_EQ(m.merged.config_sha256, whole.config_sha256);
  // The check needs naive and fa2 at T=256: they came from different shards.
  ASSERT_TRUE(m.checks_evaluated);
  ASSERT_EQ(m.merged.checks.size(), 1u);
  EXPECT_EQ(m.merged.checks[0].verdict, VerdictKind::pass) << m.merged.checks[0].detail;
  EXPECT_DOUBLE_EQ(m.merged.checks[0].measured, 2.0);
}

TEST(Merge, ChecksSeeTheMergedCasesOnly) {
  // One shard alone lacks half the pairs: its check cannot be decided.
  const MergeOutcome m = merge_results({{"shard-0.json", shard(0, 2)}}, {});
  ASSERT_EQ(m.merged.checks.size(), 1u);
  EXPECT_EQ(m.merged.checks[0].verdict, VerdictKind::error);
}

TEST(Merge, DifferentConfigsAreRefusedNamingBothFiles) {
  ResultSet other = shard(1, 2);
  other.config_sha256 = std::string(64, 'f');
  other.config_path = "other.json";
  const std::string what = merge_error({{"a.json", shard(0, 2)}, {"b.json", other}});
  EXPECT_NE(what.find("a.json"), std::string::npos) << what;
  EXPECT_NE(what.find("b.json"), std::string::npos) << what;
  EXPECT_NE(what.find("different configs"), std::string::npos) << what;
}

TEST(Merge, DifferentSchemaMajorsAreRefused) {
  ResultSet other = shard(1, 2);
  other.schema = "fa2bench/results/2";
  const std::string what = merge_error({{"a.json", shard(0, 2)}, {"b.json", other}});
  EXPECT_NE(what.find("schema major"), std::string::npos) << what;
  EXPECT_NE(what.find("b.json"), std::string::npos) << what;
  ResultSet minor = shard(1, 2);
  minor.schema = "fa2bench/results/1.4";
  EXPECT_EQ(merge_error({{"a.json", shard(0, 2)}, {"b.json", minor}}), "");
}

TEST(Merge, DuplicatesKeepTheFirstOrFailWhenStrict) {
  ResultSet again = shard(0, 2);
  for (CaseResult& r : again.cases) r.time.median *= 10;
  const MergeOutcome m =
      merge_results({{"a.json", shard(0, 2)}, {"b.json", shard(1, 2)}, {"c.json", again}}, {});
  EXPECT_EQ(m.merged.cases.size(), 6u);
  EXPECT_EQ(m.duplicates.size(), 3u);
  ASSERT_FALSE(m.warnings.empty());
  EXPECT_NE(m.warnings[0].find("duplicate case"), std::string::npos) << m.warnings[0];
  EXPECT_NE(m.warnings[0].find("c.json"), std::string::npos) << m.warnings[0];
  EXPECT_NE(m.warnings[0].find("first in a.json"), std::string::npos) << m.warnings[0];
  for (const CaseResult& r : m.merged.cases) EXPECT_LT(r.time.median, 10.0) << r.c.id();

  const std::string what =
      merge_error({{"a.json", shard(0, 2)}, {"c.json", shard(0, 2)}}, MergeOptions{true});
  EXPECT_NE(what.find("duplicate case"), std::string::npos) << what;
  EXPECT_NE(what.find("--strict"), std::string::npos) << what;
}

TEST(Merge, DeviceBlocks) {
  // Same model on another node (other pci_bus): one device.
  const MergeOutcome same = merge_results(
      {{"a.json", shard(0, 2)}, {"b.json", shard(1, 2, "NVIDIA H200", "0000:c1:00.0")}}, {});
  EXPECT_TRUE(same.devices.is_null());
  EXPECT_EQ(same.merged.device["pci_bus"], "0000:01:00.0");

  const MergeOutcome mixed = merge_results(
      {{"a.json", shard(0, 2)}, {"b.json", shard(1, 2, "NVIDIA A100-SXM4-80GB")}}, {});
  ASSERT_TRUE(mixed.devices.is_array());
  ASSERT_EQ(mixed.devices.size(), 2u);
  EXPECT_EQ(mixed.merged.device["name"], "NVIDIA H200");
  ASSERT_FALSE(mixed.warnings.empty());
  EXPECT_NE(mixed.warnings.back().find("2 different devices"), std::string::npos);
  const json written = json::parse(merged_results_json_text(mixed));
  EXPECT_EQ(written["devices"][1]["name"], "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(written["device"]["name"], "NVIDIA H200");
  // And the written file still loads as a results file.
  const ResultSet back = result_set_from_json(written);
  EXPECT_EQ(back.cases.size(), 6u);
}

// Issue 41, defect 3: without a usable echo there is nothing to judge by; a merge never
// passes on an unjudged set, whatever the order of its inputs.
TEST(Merge, NoConfigEchoIsRefusedInAnyArgumentOrder) {
  ResultSet a = shard(0, 2), b = shard(1, 2);
  a.config_echo = nullptr;
  EXPECT_NE(merge_error({{"a.json", a}, {"b.json", b}}).find("a.json: has no config echo"),
            std::string::npos);
  EXPECT_NE(merge_error({{"b.json", b}, {"a.json", a}}).find("a.json: has no config echo"),
            std::string::npos);
}

TEST(Merge, AnEditedEchoIsRefused) {
  ResultSet a = shard(0, 2), b = shard(1, 2);
  // A loosened threshold: the recorded sha256 stays the sweep's.
  b.config_echo["checks"][0]["value"] = 1e9;
  const std::string what = merge_error({{"a.json", a}, {"b.json", b}});
  EXPECT_NE(what.find("b.json: /config/echo was edited"), std::string::npos) << what;
}

TEST(Merge, ConfigOptionJudgesFilesWithoutEcho) {
  ResultSet a = shard(0, 2), b = shard(1, 2);
  const Config config = parse_config(a.config_echo, "given.json");
  a.config_echo = nullptr;
  b.config_echo = nullptr;
  MergeOptions o;
  o.config = &config;
  const MergeOutcome m = merge_results({{"a.json", a}, {"b.json", b}}, o);
  ASSERT_TRUE(m.checks_evaluated);
  ASSERT_EQ(m.merged.checks.size(), 1u);
  EXPECT_EQ(m.merged.checks[0].verdict, VerdictKind::pass) << m.merged.checks[0].detail;
}

TEST(Merge, ConfigOptionAskingForOtherMeasurementsIsRefused) {
  ResultSet a = shard(0, 2), b = shard(1, 2);
  nlohmann::json raw = a.config_echo;
  raw["measure"]["seed"] = 7;  // the results are stale for this config
  const Config config = parse_config(raw, "given.json");
  MergeOptions o;
  o.config = &config;
  const std::string what = merge_error({{"a.json", a}, {"b.json", b}}, o);
  EXPECT_NE(what.find("seed"), std::string::npos) << what;
}

TEST(Merge, NothingToMerge) {
  EXPECT_NE(merge_error({}), "");
}

}  // namespace
}  // namespace fa2b
