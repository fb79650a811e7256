// SPDX-License-Identifier: Apache-2.0
// Transformer sweeps in configs: expansion order, defaults, ids, and every refusal naming its
// JSON pointer; attention sweeps beside them are refused, not mixed.
#include <gtest/gtest.h>

#include "config/config.h"
#include "config_errors.h"

namespace fa2b {
namespace {

using test_config::errors_of;

using json = nlohmann::json;

json model_config(const json& grid_changes) {
  json j = json::parse(R"({
    "name": "m",
    "sweeps": [{"name": "tiny", "scope": "transformer", "backends": ["cpu-naive", "cpu-flash"],
                "grid": {"layers": 2, "hidden": 64, "heads": 4, "vocab": 97, "B": 2,
                         "T": [33, 64], "dtype": "fp32"}}]
  })");
  for (const auto& item : grid_changes.items()) {
    if (item.value().is_null()) {
      j["sweeps"][0]["grid"].erase(item.key());
    } else {
      j["sweeps"][0]["grid"][item.key()] = item.value();
    }
  }
  return j;
}

// The one error message that starts with `pointer`, or "" when none does.
std::string error_at(const json& j, const std::string& pointer) {
  for (const auto& m : errors_of(j))
    if (m.rfind(pointer + ": ", 0) == 0) return m;
  return "";
}

TEST(ModelConfig, ExpandsGridWithBackendsFastestAndDefaults) {
  const Config c = parse_config(model_config(json::object()), "m.json");
  EXPECT_TRUE(c.cases.empty());
  ASSERT_EQ(c.model_cases.size(), 4u);
  const ModelCase& first = c.model_cases[0];
  EXPECT_EQ(first.backend, "cpu-naive");
  EXPECT_EQ(c.model_cases[1].backend, "cpu-flash");
  EXPECT_EQ(first.T, 33);
  EXPECT_EQ(c.model_cases[2].T, 64);
  EXPECT_EQ(first.H_kv, 4);  // defaults to heads
  EXPECT_EQ(first.mlp_ratio, 4);
  EXPECT_EQ(first.optimizer, Optimizer::adamw);
  EXPECT_FALSE(first.recompute);
  EXPECT_EQ(first.head_dim(), 16);
  EXPECT_EQ(first.id(), "cpu-naive/L2-h64-nh4-V97-B2-T33/fp32/adamw");
  EXPECT_EQ(first.sweep, "tiny");
}

TEST(ModelConfig, OptionalAxesAndTheirIdTags) {
  const Config c = parse_config(model_config({{"H_kv", 2},
                                              {"mlp_ratio", 2},
                                              {"optimizer", "none"},
                                              {"recompute", "on"},
                                              {"T", 33},
                                              {"dtype", nullptr}}),
                                "m.json");
  ASSERT_EQ(c.model_cases.size(), 2u);
  const ModelCase& m = c.model_cases[0];
  EXPECT_EQ(m.dtype, DType::bf16);  // the article's dtype when the grid gives none
  EXPECT_EQ(m.id(), "cpu-naive/L2-h64-nh4-kv2-r2-V97-B2-T33/bf16/none/recompute");
  const Case a = m.attention_case();
  EXPECT_EQ(a.H, 4);
  EXPECT_EQ(a.H_kv, 2);
  EXPECT_EQ(a.D, 16);
  EXPECT_TRUE(a.causal);
  EXPECT_EQ(a.mode, Mode::fwd_bwd);
}

TEST(ModelConfig, HiddenNotDivisibleByHeadsNamesHeads) {
  const std::string e = error_at(model_config({{"heads", 3}}), "/sweeps/0/grid/heads");
  EXPECT_NE(e.find("hidden = 64 is not a multiple of heads = 3"), std::string::npos) << e;
}

TEST(ModelConfig, HeadsNotDivisibleByHkvNamesHkv) {
  const std::string e = error_at(model_config({{"H_kv", 3}}), "/sweeps/0/grid/H_kv");
  EXPECT_NE(e.find("heads = 4 is not a multiple of H_kv = 3"), std::string::npos) << e;
}

TEST(ModelConfig, UnknownOptimizerAndRecomputeValues) {
  const std::string e =
      error_at(model_config({{"optimizer", "adamW"}}), "/sweeps/0/grid/optimizer");
  EXPECT_NE(e.find("did you mean \"adamw\""), std::string::npos) << e;
  EXPECT_NE(error_at(model_config({{"recompute", {"off", "yes"}}}), "/sweeps/0/grid/recompute/1"),
            "");
  EXPECT_NE(error_at(model_config({{"recompute", true}}), "/sweeps/0/grid/recompute"), "");
}

TEST(ModelConfig, BadAxesAndMissingOnes) {
  EXPECT_NE(error_at(model_config({{"hiden", 64}}), "/sweeps/0/grid/hiden").find("did you mean"),
            std::string::npos);
  EXPECT_NE(error_at(model_config({{"layers", 0}}), "/sweeps/0/grid/layers"), "");
  EXPECT_NE(error_at(model_config({{"vocab", "97"}}), "/sweeps/0/grid/vocab"), "");
  EXPECT_NE(error_at(model_config({{"dtype", "fp8"}}), "/sweeps/0/grid/dtype"), "");
  const std::string e = error_at(model_config({{"vocab", nullptr}}), "/sweeps/0/grid");
  EXPECT_NE(e.find("missing axis \"vocab\""), std::string::npos) << e;
  // Ranges work on the integer axes as on the attention ones.
  const Config c =
      parse_config(model_config({{"T", {{"range", {32, 128}}, {"mul", 2}}}}), "m.json");
  EXPECT_EQ(c.model_cases.size(), 6u);
}

TEST(ModelConfig, SweepKeysBackendsAndScope) {
  json j = model_config(json::object());
  j["sweeps"][0]["zip"] = json::array();
  EXPECT_NE(error_at(j, "/sweeps/0/zip"), "");  // zip/where/exclude are attention-only for now
  j = model_config(json::object());
  j["sweeps"][0]["backends"] = {"cpu-flsh"};
  EXPECT_NE(error_at(j, "/sweeps/0/backends/0").find("did you mean \"cpu-flash\""),
            std::string::npos);
  j = model_config(json::object());
  j["sweeps"][0]["scope"] = "model";
  EXPECT_NE(error_at(j, "/sweeps/0/scope"), "");
}

TEST(ModelConfig, SizesThatOverflowAreRefused) {
  const std::string e =
      error_at(model_config({{"vocab", 4611686018427387904LL}, {"T", 33}}), "/sweeps/0/grid");
  EXPECT_NE(e.find("overflows"), std::string::npos) << e;
}

TEST(ModelConfig, AttentionAndTransformerSweepsDoNotMix) {
  json j = model_config(json::object());
  j["sweeps"].push_back(json::parse(
      R"({"name": "attn", "backends": ["cpu-flash"], "grid": {"H": 4, "D": 16, "T": 64}})"));
  EXPECT_NE(error_at(j, "/sweeps/0").find("not both"), std::string::npos);
}

TEST(ModelConfig, ChecksOfTransformerResults) {
  json j = model_config(json::object());
  j["checks"] = json::parse(R"([
    {"name": "flash_ok", "kind": "status", "expect": "ok", "select": {"backend": "cpu-flash"}},
    {"name": "fast", "kind": "threshold", "metric": "step_ms", "op": "<", "value": 1e4},
    {"name": "saves", "kind": "ratio", "metric": "peak_bytes", "numerator": "cpu-flash",
     "denominator": "cpu-naive", "op": "<=", "value": 1, "select": {"T": 64}}])");
  const Config c = parse_config(j, "m.json");
  ASSERT_EQ(c.checks.size(), 3u);
  EXPECT_EQ(c.checks[1].metric, "step_ms");
  // Kinds without a meaning here, attention metrics, selections and pairs that match nothing.
  j["checks"] = json::parse(R"([
    {"name": "g", "kind": "growth", "metric": "step_ms", "op": "<", "value": 5, "axis": "T",
     "from": 33, "to": 64},
    {"name": "m", "kind": "threshold", "metric": "time_median_ms", "op": "<", "value": 1},
    {"name": "s", "kind": "status", "expect": "ok", "select": {"T": 4096}},
    {"name": "r", "kind": "ratio", "metric": "peak_bytes", "numerator": "fa2",
     "denominator": "cpu-naive", "op": "<=", "value": 1}])");
  EXPECT_NE(error_at(j, "/checks/0/kind").find("do not apply to transformer sweeps"),
            std::string::npos);
  EXPECT_NE(error_at(j, "/checks/1/metric").find("allowed: peak_bytes"), std::string::npos);
  EXPECT_NE(error_at(j, "/checks/2/select").find("no transformer case matches"), std::string::npos);
  EXPECT_NE(error_at(j, "/checks/3").find("both \"fa2\" and \"cpu-naive\""), std::string::npos);
}

TEST(ModelConfig, AttentionSweepMayNameItsScope) {
  const json j = json::parse(R"({"sweeps": [{"name": "a", "scope": "attention",
    "backends": ["cpu-flash"], "grid": {"H": 4, "D": 16, "T": 64}}]})");
  const Config c = parse_config(j, "a.json");
  EXPECT_EQ(c.cases.size(), 1u);
  EXPECT_TRUE(c.model_cases.empty());
}

TEST(ModelConfig, BackendsOverrideReplacesTheModelsAttention) {
  const Config c = parse_config(model_config({{"T", 33}}), "m.json", ConfigOverrides{{}, {"fa2"}});
  ASSERT_EQ(c.model_cases.size(), 1u);
  EXPECT_EQ(c.model_cases[0].backend, "fa2");
}

}  // namespace
}  // namespace fa2b
