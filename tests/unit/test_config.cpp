// SPDX-License-Identifier: Apache-2.0
// Config module: parsing, validation messages (with their JSON pointers), grid expansion,
// overrides, sha256 and the shipped configs.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "config/config.h"

namespace fa2b {
namespace {

using json = nlohmann::json;

// A small valid config the tests modify.
json base() {
  return json::parse(R"({
    "name": "t",
    "defaults": {"H": 4, "D": 64},
    "sweeps": [{"name": "s", "backends": ["naive", "fa2"], "grid": {"T": [128, 256]}}]
  })");
}

std::vector<std::string> errors_of(const json& j, const ConfigOverrides& o = {}) {
  try {
    parse_config(j, "test.json", o);
  } catch (const ConfigError& e) {
    return e.messages();
  }
  return {};
}

::testing::AssertionResult HasError(const json& j, const std::string& sub,
                                    const ConfigOverrides& o = {}) {
  const auto msgs = errors_of(j, o);
  for (const auto& m : msgs) {
    if (m.find(sub) != std::string::npos) return ::testing::AssertionSuccess();
  }
  auto r = ::testing::AssertionFailure()
           << "no error contains \"" << sub << "\"; got " << msgs.size() << ":";
  for (const auto& m : msgs) r << "\n  " << m;
  return r;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string src(const std::string& rel) {
  return std::string(FA2BENCH_SOURCE_DIR) + "/" + rel;
}

std::vector<std::string> ids(const Config& c) {
  std::vector<std::string> out;
  for (const auto& k : c.cases) out.push_back(k.id());
  return out;
}

// ---- sha256 ----------------------------------------------------------------------------------

TEST(ConfigSha256, KnownVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  // 55, 56 and 64 bytes: the padding boundaries.
  EXPECT_EQ(sha256_hex(std::string(55, 'a')),
            "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  EXPECT_EQ(sha256_hex(std::string(56, 'a')),
            "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
  EXPECT_EQ(sha256_hex(std::string(64, 'a')),
            "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

TEST(ConfigSha256, ConfigHashIsOfRawDump) {
  const Config c = parse_config(base(), "t.json");
  EXPECT_EQ(c.sha256, sha256_hex(c.raw.dump()));
  EXPECT_EQ(c.sha256.size(), 64u);
}

// ---- expansion -------------------------------------------------------------------------------

TEST(ConfigExpand, ProductOrderLastAxisFastestBackendsInnermost) {
  json j = base();
  j["sweeps"][0]["grid"] = {{"T", {128, 256}}, {"dtype", {"fp16", "bf16"}}};
  const Config c = parse_config(j, "t.json");
  const std::vector<std::string> want = {
      "naive/B1-H4-T128-D64/fp16/full", "fa2/B1-H4-T128-D64/fp16/full",
      "naive/B1-H4-T128-D64/bf16/full", "fa2/B1-H4-T128-D64/bf16/full",
      "naive/B1-H4-T256-D64/fp16/full", "fa2/B1-H4-T256-D64/fp16/full",
      "naive/B1-H4-T256-D64/bf16/full", "fa2/B1-H4-T256-D64/bf16/full"};
  EXPECT_EQ(ids(c), want);
  for (const auto& k : c.cases) {
    EXPECT_EQ(k.sweep, "s");
    EXPECT_EQ(k.backend, k.role);
    EXPECT_EQ(k.H_kv, 4);
    EXPECT_EQ(k.layout, Layout::bhsd);
  }
}

TEST(ConfigExpand, RangeMulAndAdd) {
  json j = base();
  j["sweeps"][0]["backends"] = {"fa2"};
  j["sweeps"][0]["grid"]["T"] = {{"range", {1024, 32768}}, {"mul", 2}};
  Config c = parse_config(j, "t.json");
  std::vector<std::int64_t> ts;
  for (const auto& k : c.cases) ts.push_back(k.T_q);
  EXPECT_EQ(ts, (std::vector<std::int64_t>{1024, 2048, 4096, 8192, 16384, 32768}));

  j["sweeps"][0]["grid"]["T"] = {{"range", {100, 130}}, {"add", 10}};
  c = parse_config(j, "t.json");
  ts.clear();
  for (const auto& k : c.cases) ts.push_back(k.T_k);
  EXPECT_EQ(ts, (std::vector<std::int64_t>{100, 110, 120, 130}));

  // The end is included only when the step lands on it.
  j["sweeps"][0]["grid"]["T"] = {{"range", {3, 20}}, {"mul", 3}};
  c = parse_config(j, "t.json");
  ts.clear();
  for (const auto& k : c.cases) ts.push_back(k.T_q);
  EXPECT_EQ(ts, (std::vector<std::int64_t>{3, 9}));
}

TEST(ConfigExpand, ZipAdvancesAxesTogether) {
  json j = base();
  j["sweeps"][0]["backends"] = {"fa2"};
  j["sweeps"][0]["grid"] = {{"B", {8, 4, 2}}, {"T", {512, 1024, 2048}}, {"causal", {true, false}}};
  j["sweeps"][0]["zip"] = json::array({json::array({"B", "T"})});
  const Config c = parse_config(j, "t.json");
  const std::vector<std::string> want = {
      "fa2/B8-H4-T512-D64/fp16/causal",  "fa2/B8-H4-T512-D64/fp16/full",
      "fa2/B4-H4-T1024-D64/fp16/causal", "fa2/B4-H4-T1024-D64/fp16/full",
      "fa2/B2-H4-T2048-D64/fp16/causal", "fa2/B2-H4-T2048-D64/fp16/full"};
  EXPECT_EQ(ids(c), want);
}

TEST(ConfigExpand, WhereAndExclude) {
  json j = base();
  j["sweeps"][0]["grid"]["T"] = {512, 1024, 2048, 4096, 8192};
  j["sweeps"][0]["where"] = {{{"T", {{"max", 4096}}}}};
  j["sweeps"][0]["exclude"] = {{{"backend", "naive"}, {"T", {2048, 4096}}}};
  const Config c = parse_config(j, "t.json");
  const std::vector<std::string> want = {
      "naive/B1-H4-T512-D64/fp16/full",  "fa2/B1-H4-T512-D64/fp16/full",
      "naive/B1-H4-T1024-D64/fp16/full", "fa2/B1-H4-T1024-D64/fp16/full",
      "fa2/B1-H4-T2048-D64/fp16/full",   "fa2/B1-H4-T4096-D64/fp16/full"};
  EXPECT_EQ(ids(c), want);
}

TEST(ConfigExpand, WhereKeepsCasesMatchingAnyEntry) {
  json j = base();
  j["sweeps"][0]["grid"]["T"] = {128, 256, 512};
  j["sweeps"][0]["where"] = {{{"T", 128}}, {{"backend", "fa2"}, {"T", {{"min", 500}}}}};
  const Config c = parse_config(j, "t.json");
  const std::vector<std::string> want = {"naive/B1-H4-T128-D64/fp16/full",
                                         "fa2/B1-H4-T128-D64/fp16/full",
                                         "fa2/B1-H4-T512-D64/fp16/full"};
  EXPECT_EQ(ids(c), want);
}

TEST(ConfigExpand, DefaultsFillAndGridWins) {
  json j = base();
  j["defaults"] = {{"B", 2},    {"H", 8},          {"H_kv", 2},      {"D", 128},
                   {"T", 4096}, {"dtype", "bf16"}, {"causal", true}, {"layout", "bshd"}};
  j["sweeps"][0]["grid"] = {{"D", 64}};
  j["sweeps"][0]["backends"] = {"fa2"};
  const Config c = parse_config(j, "t.json");
  ASSERT_EQ(c.cases.size(), 1u);
  const Case& k = c.cases[0];
  EXPECT_EQ(k.B, 2);
  EXPECT_EQ(k.H, 8);
  EXPECT_EQ(k.H_kv, 2);
  EXPECT_EQ(k.T_q, 4096);
  EXPECT_EQ(k.T_k, 4096);
  EXPECT_EQ(k.D, 64);
  EXPECT_EQ(k.dtype, DType::bf16);
  EXPECT_TRUE(k.causal);
  EXPECT_EQ(k.layout, Layout::bshd);
  EXPECT_EQ(k.id(), "fa2/B2-H8-Hkv2-T4096-D64/bf16/causal/bshd");
}

TEST(ConfigExpand, TqTkInGridReplaceDefaultT) {
  json j = base();
  j["defaults"]["T"] = 256;
  j["sweeps"][0]["grid"] = {{"T_q", {1, 17}}};
  j["sweeps"][0]["backends"] = {"fa2"};
  const Config c = parse_config(j, "t.json");
  ASSERT_EQ(c.cases.size(), 2u);
  EXPECT_EQ(c.cases[0].T_q, 1);
  EXPECT_EQ(c.cases[0].T_k, 256);
  EXPECT_EQ(c.cases[1].T_q, 17);
  EXPECT_EQ(c.cases[1].id(), "fa2/B1-H4-Tq17-Tk256-D64/fp16/full");
}

TEST(ConfigExpand, MeasureTopLevelAndSweepOverride) {
  json j = base();
  j["measure"] = {{"warmup", 5}, {"max_samples", 40}, {"seed", 7}, {"inputs", "uniform"}};
  j["sweeps"].push_back(j["sweeps"][0]);
  j["sweeps"][1]["name"] = "s2";
  j["sweeps"][1]["measure"] = {{"max_samples", 20}, {"l2_flush", false}};
  const Config c = parse_config(j, "t.json");
  EXPECT_EQ(c.defaults.warmup, 5);
  EXPECT_EQ(c.defaults.max_samples, 40);
  ASSERT_EQ(c.cases.size(), 8u);
  EXPECT_EQ(c.cases[0].measure.max_samples, 40);
  EXPECT_TRUE(c.cases[0].measure.l2_flush);
  EXPECT_EQ(c.cases[4].sweep, "s2");
  EXPECT_EQ(c.cases[4].measure.max_samples, 20);
  EXPECT_EQ(c.cases[4].measure.warmup, 5);
  EXPECT_EQ(c.cases[4].measure.seed, 7u);
  EXPECT_EQ(c.cases[4].measure.inputs, InputDist::uniform);
  EXPECT_FALSE(c.cases[4].measure.l2_flush);
  // min_samples is capped at max_samples.
  EXPECT_EQ(c.cases[4].measure.min_samples, 10);
  j["sweeps"][1]["measure"]["max_samples"] = 4;
  EXPECT_EQ(parse_config(j, "t.json").cases[4].measure.min_samples, 4);
}

TEST(ConfigExpand, NameDefaultsToFileStemAndCommentsIgnored) {
  json j = base();
  j.erase("name");
  j["_comment"] = "ignored";
  j["sweeps"][0]["_note"] = "also ignored";
  EXPECT_EQ(parse_config(j, "configs/my_sweep.json").name, "my_sweep");
}

// ---- checks ----------------------------------------------------------------------------------

TEST(ConfigChecks, ParsesEveryKind) {
  json j = base();
  j["checks"] = json::parse(R"([
    {"name": "a", "kind": "threshold", "metric": "max_abs_err", "select": {"backend": "fa2"},
     "op": "<", "value": 1e-3},
    {"name": "b", "kind": "ratio", "metric": "time_median_ms", "numerator": "naive",
     "denominator": "fa2", "select": {"T": 256}, "op": ">=", "value": 3},
    {"name": "c", "kind": "growth", "metric": "peak_bytes", "select": {"backend": "fa2"},
     "axis": "T", "from": 128, "to": 256, "op": "<=", "value": 6},
    {"name": "d", "kind": "status", "select": {"backend": "naive", "T": 256}, "expect": "oom"},
    {"name": "e", "kind": "plan", "metric": "flash_state_bytes",
     "divide_by": "score_matrix_bytes", "op": "<", "value": 0.5},
    {"name": "f", "kind": "accuracy_rule", "metric": "max_abs_err",
     "select": {"backend": "fa2"}, "baseline": "naive", "factor": 3}
  ])");
  const Config c = parse_config(j, "t.json");
  ASSERT_EQ(c.checks.size(), 6u);
  EXPECT_EQ(c.checks[0].op, "<");
  EXPECT_DOUBLE_EQ(c.checks[0].value, 1e-3);
  EXPECT_EQ(c.checks[0].pointer, "/checks/0");
  EXPECT_EQ(c.checks[1].numerator, "naive");
  EXPECT_EQ(c.checks[1].denominator, "fa2");
  EXPECT_EQ(c.checks[2].axis, "T");
  EXPECT_DOUBLE_EQ(c.checks[2].from, 128);
  EXPECT_DOUBLE_EQ(c.checks[2].to, 256);
  EXPECT_EQ(c.checks[3].expect, "oom");
  EXPECT_EQ(c.checks[4].divide_by, "score_matrix_bytes");
  EXPECT_TRUE(c.checks[4].select.match.empty());
  EXPECT_EQ(c.checks[5].baseline, "naive");
  EXPECT_DOUBLE_EQ(c.checks[5].factor, 3);
  EXPECT_DOUBLE_EQ(c.checks[5].atol, 1e-5);
  // Selectors match the cases they name.
  int n = 0;
  for (const auto& k : c.cases) n += c.checks[3].select.matches(k) ? 1 : 0;
  EXPECT_EQ(n, 1);
}

TEST(ConfigSelector, MatchesRoleOrBackendAndRanges) {
  Selector s;
  s.match["backend"] = {"fa2"};
  s.match["T"] = {json{{"min", 256}, {"max", 1024}}};
  Case c;
  c.backend = "cpu-flash";
  c.role = "fa2";
  c.T_q = c.T_k = 512;
  EXPECT_TRUE(s.matches(c));
  c.T_k = 256;  // T only matches T_q == T_k
  EXPECT_FALSE(s.matches(c));
  c.T_k = 512;
  c.role = "naive";
  EXPECT_FALSE(s.matches(c));
  s.match["backend"] = {"naive", "cpu-flash"};
  EXPECT_TRUE(s.matches(c));
  EXPECT_TRUE(Selector{}.matches(c));
}

// ---- errors: each with its pointer -------------------------------------------------------------

TEST(ConfigErrors, UnknownAxisSuggestsClosest) {
  json j = base();
  j["sweeps"][0]["grid"]["Dd"] = 64;
  EXPECT_TRUE(HasError(j,
                       "/sweeps/0/grid/Dd: unknown axis \"Dd\" (did you mean \"D\"?); "
                       "allowed: B, H, H_kv, T, T_q, T_k, lengths, D, dtype, causal, window, "
                       "layout, packing"));
}

TEST(ConfigErrors, UnknownKeysAtEveryLevel) {
  json j = base();
  j["sweep"] = 1;
  j["measure"] = {{"max_sample", 5}};
  j["sweeps"][0]["backend"] = {"fa2"};
  j["checks"] = {{{"name", "a"}, {"kind", "status"}, {"expect", "ok"}, {"metrc", "x"}}};
  EXPECT_TRUE(HasError(j, "/sweep: unknown key \"sweep\" (did you mean \"sweeps\"?)"));
  EXPECT_TRUE(HasError(j,
                       "/measure/max_sample: unknown measure setting \"max_sample\" (did you "
                       "mean \"max_samples\"?)"));
  EXPECT_TRUE(HasError(j,
                       "/sweeps/0/backend: unknown sweep key \"backend\" (did you mean "
                       "\"backends\"?)"));
  EXPECT_TRUE(HasError(j, "/checks/0/metrc: unknown key for a status check \"metrc\""));
}

TEST(ConfigErrors, WrongTypes) {
  json j = base();
  j["sweeps"][0]["grid"]["T"] = {1024, "2048"};
  j["sweeps"][0]["grid"]["causal"] = "yes";
  j["measure"] = {{"l2_flush", 1}, {"max_time_s", "5"}};
  EXPECT_TRUE(HasError(j, "/sweeps/0/grid/T/1: expected a positive integer, got \"2048\""));
  EXPECT_TRUE(HasError(j, "/sweeps/0/grid/causal: expected true or false, got \"yes\""));
  EXPECT_TRUE(HasError(j, "/measure/l2_flush: expected true or false, got 1"));
  EXPECT_TRUE(HasError(j, "/measure/max_time_s: expected a number, got \"5\""));
}

TEST(ConfigExpand, KeepSamplesAndDropThrottled) {
  json j = base();
  EXPECT_EQ(parse_config(j, "t.json").cases[0].measure.keep_samples, kMaxKeptSamples);
  EXPECT_FALSE(parse_config(j, "t.json").cases[0].measure.drop_throttled);
  j["measure"] = {{"keep_samples", false}, {"drop_throttled", true}};
  EXPECT_EQ(parse_config(j, "t.json").cases[0].measure.keep_samples, 0);
  EXPECT_TRUE(parse_config(j, "t.json").cases[0].measure.drop_throttled);
  j["measure"] = {{"keep_samples", true}};
  EXPECT_EQ(parse_config(j, "t.json").cases[0].measure.keep_samples, 1000);
  j["measure"] = {{"keep_samples", 25}};
  EXPECT_EQ(parse_config(j, "t.json").cases[0].measure.keep_samples, 25);
  j["measure"] = {{"keep_samples", 1000}};
  EXPECT_EQ(parse_config(j, "t.json").cases[0].measure.keep_samples, 1000);
  EXPECT_EQ(parse_config(j, "t.json").cases[0].measure.sustained_s, 0.0);
  j["measure"] = {{"sustained_s", 0.5}};
  EXPECT_EQ(parse_config(j, "t.json").cases[0].measure.sustained_s, 0.5);
  EXPECT_EQ(parse_config(j, "t.json").cases[0].measure.settle_s, 0.0);
  j["measure"] = {{"settle_s", 2.5}};
  EXPECT_EQ(parse_config(j, "t.json").cases[0].measure.settle_s, 2.5);
}

TEST(ConfigErrors, KeepSamplesBeyondTheCapOrOfAnotherType) {
  json j = base();
  j["measure"] = {{"keep_samples", 1001}, {"drop_throttled", "yes"}};
  EXPECT_TRUE(HasError(j,
                       "/measure/keep_samples: expected true, false or a count from 0 to 1000 "
                       "(at most 1000 samples are kept per case), got 1001"));
  EXPECT_TRUE(HasError(j, "/measure/drop_throttled: expected true or false, got \"yes\""));
  j["measure"] = {{"sustained_s", -1}};
  EXPECT_TRUE(HasError(j, "/measure/sustained_s: expected seconds from 0 (off) to 600, got -1"));
  j["measure"] = {{"settle_s", 61}};
  EXPECT_TRUE(HasError(j, "/measure/settle_s: expected seconds from 0 (off) to 60, got 61"));
  j["measure"] = {{"settle_s", "5"}};
  EXPECT_TRUE(HasError(j, "/measure/settle_s"));
  j["measure"] = {{"keep_samples", -1}};
  EXPECT_TRUE(HasError(j, "/measure/keep_samples: expected true, false or a count"));
  j["measure"] = {{"keep_samples", "all"}};
  EXPECT_TRUE(HasError(j,
                       "/measure/keep_samples: expected true, false or a count from 0 to 1000, "
                       "got \"all\""));
  j["measure"] = {{"keep_samples", 2.5}};
  EXPECT_TRUE(HasError(j, "/measure/keep_samples: expected true, false or a count"));
}

TEST(ConfigErrors, NonPositiveSizes) {
  json j = base();
  j["sweeps"][0]["grid"]["T"] = {0, 128};
  j["sweeps"][0]["grid"]["B"] = -1;
  j["sweeps"][0]["grid"]["D"] = 64.5;
  EXPECT_TRUE(HasError(j, "/sweeps/0/grid/T/0: expected a positive integer, got 0"));
  EXPECT_TRUE(HasError(j, "/sweeps/0/grid/B: expected a positive integer, got -1"));
  EXPECT_TRUE(HasError(j, "/sweeps/0/grid/D: expected a positive integer, got 64.5"));
}

TEST(ConfigErrors, EmptyGridListsAndRanges) {
  json j = base();
  j["sweeps"][0]["grid"]["T"] = json::array();
  EXPECT_TRUE(HasError(j, "/sweeps/0/grid/T: empty list"));
  j["sweeps"][0]["grid"] = json::object();
  EXPECT_TRUE(HasError(j, "/sweeps/0/grid: empty grid"));
  j = base();
  j["sweeps"][0]["grid"]["T"] = {{"range", {512, 4096}}, {"mul", 1}};
  EXPECT_TRUE(HasError(j, "/sweeps/0/grid/T/mul: expected an integer > 1"));
  j["sweeps"][0]["grid"]["T"] = {{"range", {4096, 512}}, {"mul", 2}};
  EXPECT_TRUE(HasError(j, "/sweeps/0/grid/T/range: empty range: end 512 is less than start 4096"));
  j["sweeps"][0]["grid"]["T"] = {{"range", {512, 4096}}};
  EXPECT_TRUE(HasError(j, "/sweeps/0/grid/T: a range object needs a step"));
  j["sweeps"][0]["grid"]["T"] = {{"range", {512, 4096}}, {"mul", 2}, {"add", 2}};
  EXPECT_TRUE(HasError(j, "/sweeps/0/grid/T: give only one of \"mul\" and \"add\""));
  j["sweeps"][0]["grid"]["T"] = {{"range", {512, 4096}}, {"add", 0}};
  EXPECT_TRUE(HasError(j, "/sweeps/0/grid/T/add: expected a positive integer, got 0"));
  j["sweeps"][0]["grid"]["T"] = {{"range", {512}}, {"add", 1}};
  EXPECT_TRUE(HasError(j, "/sweeps/0/grid/T/range: expected [start, end]"));
  j["sweeps"][0]["grid"]["dtype"] = {{"range", {1, 2}}, {"add", 1}};
  EXPECT_TRUE(HasError(j, "/sweeps/0/grid/dtype: a range object is only allowed on integer axes"));
  j = base();
  j["sweeps"] = json::array();
  EXPECT_TRUE(HasError(j, "/sweeps: expected a non-empty list of sweep objects"));
  j = base();
  j["sweeps"][0]["backends"] = json::array();
  EXPECT_TRUE(HasError(j, "/sweeps/0/backends: expected a non-empty list of backend names"));
}

TEST(ConfigErrors, DuplicateAxisValue) {
  json j = base();
  j["sweeps"][0]["grid"]["T"] = {128, 256, 128};
  EXPECT_TRUE(HasError(j, "/sweeps/0/grid/T/2: duplicate value 128"));
}

TEST(ConfigErrors, UnknownBackendListsKnownOnes) {
  json j = base();
  j["sweeps"][0]["backends"] = {"fa2", "fa22"};
  EXPECT_TRUE(HasError(j,
                       "/sweeps/0/backends/1: unknown backend \"fa22\" (did you mean \"fa2\"?); "
                       "known backends: naive, fa2, "));
  j["sweeps"][0]["backends"] = {"fa2", "fa2"};
  EXPECT_TRUE(HasError(j, "/sweeps/0/backends/1: duplicate backend \"fa2\""));
}

TEST(ConfigErrors, UnknownDtypeAndLayout) {
  json j = base();
  j["sweeps"][0]["grid"]["dtype"] = {"fp16", "fp8"};
  j["sweeps"][0]["grid"]["layout"] = "bhds";
  j["measure"] = {{"inputs", "gauss"}};
  EXPECT_TRUE(HasError(j,
                       "/sweeps/0/grid/dtype/1: unknown dtype \"fp8\" (did you mean \"fp16\"?); "
                       "allowed: fp16, bf16, fp32"));
  EXPECT_TRUE(HasError(j,
                       "/sweeps/0/grid/layout: unknown layout \"bhds\" (did you mean "
                       "\"bhsd\"?); allowed: bhsd, bshd"));
  EXPECT_TRUE(HasError(j, "/measure/inputs: unknown input distribution \"gauss\""));
}

TEST(ConfigErrors, DuplicateSweepAndCheckNames) {
  json j = base();
  j["sweeps"].push_back(j["sweeps"][0]);
  j["checks"] = {{{"name", "x"}, {"kind", "status"}, {"expect", "ok"}},
                 {{"name", "x"}, {"kind", "status"}, {"expect", "oom"}}};
  EXPECT_TRUE(HasError(j, "/sweeps/1/name: duplicate sweep name \"s\""));
  EXPECT_TRUE(HasError(j, "/checks/1/name: duplicate check name \"x\""));
}

TEST(ConfigErrors, MissingRequiredFields) {
  json j = base();
  j.erase("sweeps");
  EXPECT_TRUE(HasError(j, "(root): missing required \"sweeps\""));
  j = base();
  j["sweeps"][0].erase("name");
  j["sweeps"][0].erase("backends");
  EXPECT_TRUE(HasError(j, "/sweeps/0: missing required \"name\""));
  EXPECT_TRUE(HasError(j, "/sweeps/0: missing required \"backends\""));
  j = base();
  j.erase("defaults");
  EXPECT_TRUE(HasError(j, "/sweeps/0/grid: missing axis \"H\""));
  EXPECT_TRUE(HasError(j, "/sweeps/0/grid: missing axis \"D\""));
  j = base();
  j["checks"] = json::parse(R"([{"kind": "threshold", "metric": "max_abs_err"},
                                {"name": "n"},
                                {"name": "r", "kind": "ratio", "metric": "peak_bytes",
                                 "op": ">", "value": 1},
                                {"name": "g", "kind": "growth", "metric": "peak_bytes",
                                 "op": ">", "value": 1, "axis": "T"},
                                {"name": "s", "kind": "status"},
                                {"name": "a", "kind": "accuracy_rule", "metric": "max_abs_err"}])");
  EXPECT_TRUE(HasError(j, "/checks/0: missing required \"name\""));
  EXPECT_TRUE(HasError(j, "/checks/0: missing required \"op\" for a threshold check"));
  EXPECT_TRUE(HasError(j, "/checks/0: missing required \"value\" for a threshold check"));
  EXPECT_TRUE(HasError(j, "/checks/1: missing required \"kind\""));
  EXPECT_TRUE(HasError(j, "/checks/2: missing required \"numerator\" for a ratio check"));
  EXPECT_TRUE(HasError(j, "/checks/2: missing required \"denominator\" for a ratio check"));
  EXPECT_TRUE(HasError(j, "/checks/3: missing required \"from\" for a growth check"));
  EXPECT_TRUE(HasError(j, "/checks/3: missing required \"to\" for a growth check"));
  EXPECT_TRUE(HasError(j, "/checks/4: missing required \"expect\" for a status check"));
  EXPECT_TRUE(HasError(j, "/checks/5: missing required \"baseline\" for a accuracy_rule check"));
}

TEST(ConfigErrors, CheckKindMetricOpAndExpect) {
  json j = base();
  j["checks"] = json::parse(R"([
    {"name": "a", "kind": "treshold", "metric": "max_abs_err", "op": "<", "value": 1},
    {"name": "b", "kind": "threshold", "metric": "max_abs_error", "op": "<", "value": 1},
    {"name": "c", "kind": "plan", "metric": "peak_bytes", "op": "<", "value": 1},
    {"name": "d", "kind": "threshold", "metric": "flash_state_bytes", "op": "<", "value": 1},
    {"name": "e", "kind": "threshold", "metric": "max_abs_err", "op": "=<", "value": 1},
    {"name": "f", "kind": "status", "expect": "OOM"},
    {"name": "g", "kind": "threshold", "metric": "max_abs_err", "op": "<", "value": "1"}
  ])");
  EXPECT_TRUE(HasError(j,
                       "/checks/0/kind: unknown check kind \"treshold\" (did you mean "
                       "\"threshold\"?); allowed: threshold, ratio, growth, status, plan, "
                       "accuracy_rule"));
  EXPECT_TRUE(HasError(j,
                       "/checks/1/metric: unknown metric \"max_abs_error\" (did you mean "
                       "\"max_abs_err\"?)"));
  EXPECT_TRUE(HasError(j, "/checks/2/metric: unknown plan metric \"peak_bytes\"; allowed: flops"));
  EXPECT_TRUE(HasError(j, "/checks/3/metric: unknown metric \"flash_state_bytes\""));
  EXPECT_TRUE(HasError(
      j, "/checks/4/op: unknown op \"=<\" (did you mean \"<=\"?); allowed: <, <=, >, >=, =="));
  EXPECT_TRUE(HasError(j,
                       "/checks/5/expect: unknown status \"OOM\" (did you mean \"oom\"?); "
                       "allowed: ok, unsupported, oom, error, timeout"));
  EXPECT_TRUE(HasError(j, "/checks/6/value: expected a number, got \"1\""));
}

TEST(ConfigErrors, CheckSelectNamesMissingCases) {
  json j = base();
  j["checks"] = json::parse(R"([
    {"name": "a", "kind": "status", "select": {"T": 4096}, "expect": "ok"},
    {"name": "b", "kind": "status", "select": {"backend": "cpu-flash"}, "expect": "ok"},
    {"name": "c", "kind": "status", "select": {"T": [128, 999]}, "expect": "ok"},
    {"name": "d", "kind": "status", "select": {"dtype": "bf16"}, "expect": "ok"},
    {"name": "e", "kind": "status", "select": {"Tq": 1}, "expect": "ok"},
    {"name": "f", "kind": "status", "select": {"T": {"min": 5000}}, "expect": "ok"}
  ])");
  EXPECT_TRUE(HasError(j, "/checks/0/select/T: no case has T = 4096"));
  EXPECT_TRUE(HasError(j,
                       "/checks/1/select/backend: no case has backend \"cpu-flash\" (backends in "
                       "this config: naive, fa2)"));
  EXPECT_TRUE(HasError(j, "/checks/2/select/T/1: no case has T = 999"));
  EXPECT_TRUE(HasError(j, "/checks/3/select/dtype: no case has dtype = bf16"));
  EXPECT_TRUE(HasError(j,
                       "/checks/4/select/Tq: unknown selector axis \"Tq\" (did you mean "
                       "\"T_q\"?)"));
  EXPECT_TRUE(HasError(j, "/checks/5/select/T: no case has T in [5000, inf]"));
  // Every value exists, but not together.
  j = base();
  j["sweeps"][0]["exclude"] = {{{"backend", "naive"}, {"T", 256}}};
  j["checks"] = {{{"name", "a"},
                  {"kind", "status"},
                  {"expect", "oom"},
                  {"select", {{"backend", "naive"}, {"T", 256}}}}};
  EXPECT_TRUE(HasError(j, "/checks/0/select: no case matches all of this selector's axes"));
}

TEST(ConfigErrors, RatioAccuracyAndGrowthReferences) {
  json j = base();
  j["sweeps"][0]["backends"] = {"fa2"};
  j["checks"] = json::parse(R"([
    {"name": "a", "kind": "ratio", "metric": "time_median_ms", "numerator": "naive",
     "denominator": "fa2", "op": ">=", "value": 3},
    {"name": "b", "kind": "accuracy_rule", "metric": "max_abs_err", "baseline": "cpu-naive"},
    {"name": "c", "kind": "growth", "metric": "peak_bytes", "axis": "T", "from": 128,
     "to": 4096, "op": "<=", "value": 6},
    {"name": "d", "kind": "growth", "metric": "peak_bytes", "axis": "dtype", "from": 1,
     "to": 2, "op": "<=", "value": 6},
    {"name": "e", "kind": "ratio", "metric": "time_median_ms", "numerator": "fa2",
     "denominator": "fa2", "op": ">=", "value": 3}
  ])");
  EXPECT_TRUE(HasError(j,
                       "/checks/0/numerator: no case has backend \"naive\" (backends in this "
                       "config: fa2)"));
  EXPECT_TRUE(HasError(j, "/checks/1/baseline: no case has backend \"cpu-naive\""));
  EXPECT_TRUE(HasError(j,
                       "/checks/2/to: no selected case has T = 4096 (values on this axis: "
                       "128, 256)"));
  EXPECT_TRUE(HasError(j, "/checks/3/axis: unknown growth axis \"dtype\""));
  EXPECT_TRUE(HasError(j, "/checks/4/denominator: numerator and denominator are the same"));
}

TEST(ConfigErrors, SizesOverflowAndGqa) {
  json j = base();
  j["sweeps"][0]["grid"] = {{"B", 1000000}, {"H", 1000}, {"T", 1000000000}};
  EXPECT_TRUE(HasError(j, "/sweeps/0/grid: sizes too large"));
  j = base();
  j["sweeps"][0]["grid"]["H"] = 32;
  j["sweeps"][0]["grid"]["H_kv"] = {8, 5};
  EXPECT_TRUE(HasError(j, "/sweeps/0/grid/H_kv: H = 32 is not a multiple of H_kv = 5"));
  const auto msgs = errors_of(j);
  EXPECT_EQ(msgs.size(), 1u);  // reported once, not once per case
}

TEST(ConfigErrors, TTogetherWithTqTk) {
  json j = base();
  j["sweeps"][0]["grid"]["T_q"] = 64;
  EXPECT_TRUE(HasError(j, "/sweeps/0/grid/T: give either T (sets T_q = T_k) or T_q and T_k"));
  j = base();
  j["defaults"]["T_k"] = 64;
  j["defaults"]["T"] = 64;
  EXPECT_TRUE(HasError(j, "/defaults/T: give either T"));
  j = base();
  j["sweeps"][0]["grid"] = {{"T_q", 64}};
  EXPECT_TRUE(HasError(j, "/sweeps/0/grid: missing sequence length"));
}

TEST(ConfigErrors, AnyHeadDimIsValid) {
  json j = base();
  j["sweeps"][0]["grid"]["D"] = {1, 100, 257};
  EXPECT_TRUE(errors_of(j).empty());
}

TEST(ConfigErrors, CaseLimit) {
  json j = base();
  j["sweeps"][0]["grid"] = {{"T", {{"range", {1, 1000}}, {"add", 1}}},
                            {"B", {{"range", {1, 100}}, {"add", 1}}}};
  EXPECT_TRUE(HasError(j, "/sweeps/0: expands to more than 100000 cases"));
}

TEST(ConfigErrors, WhereRemovingEverything) {
  json j = base();
  j["sweeps"][0]["where"] = {{{"T", 4096}}};
  EXPECT_TRUE(HasError(j, "/sweeps/0: where/exclude remove every case of this sweep"));
}

TEST(ConfigErrors, ZipProblems) {
  json j = base();
  j["sweeps"][0]["grid"]["B"] = {1, 2, 3};
  j["sweeps"][0]["zip"] = json::array({json::array({"B", "T"})});
  EXPECT_TRUE(HasError(j, "/sweeps/0/zip/0/1: cannot zip \"T\" (2 values) with \"B\" (3 values)"));
  j["sweeps"][0]["zip"] = json::array({json::array({"B", "Tx"})});
  EXPECT_TRUE(HasError(j,
                       "/sweeps/0/zip/0/1: expected an axis name, got \"Tx\" (did you mean "
                       "\"T\"?)"));
  j["sweeps"][0]["zip"] = json::array({json::array({"B"})});
  EXPECT_TRUE(HasError(j, "/sweeps/0/zip/0: expected a list of at least two axis names"));
}

TEST(ConfigErrors, CollectsAllErrorsInOneThrow) {
  json j = base();
  j["sweeps"][0]["grid"]["Dd"] = 64;
  j["sweeps"][0]["backends"] = {"fa22"};
  j["measure"] = {{"warmup", -1}};
  const auto msgs = errors_of(j);
  EXPECT_EQ(msgs.size(), 3u);
  try {
    parse_config(j, "t.json");
    FAIL() << "no ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(
        std::string(e.what()).find("/measure/warmup: expected a non-negative integer, got -1"),
        std::string::npos);
  }
}

// ---- overrides -------------------------------------------------------------------------------

TEST(ConfigOverrides, SetGridMeasureAndDefaults) {
  json j = base();
  j["sweeps"][0]["measure"] = {{"max_samples", 30}};
  ConfigOverrides o;
  o.set = {"grid.T=[1024,2048]", "grid.causal=true", "measure.max_samples=5",
           "defaults.D=32",      "grid.dtype=bf16",  "description=hello world"};
  const Config c = parse_config(j, "t.json", o);
  ASSERT_EQ(c.cases.size(), 4u);
  EXPECT_EQ(c.cases[0].id(), "naive/B1-H4-T1024-D32/bf16/causal");
  EXPECT_EQ(c.cases[3].id(), "fa2/B1-H4-T2048-D32/bf16/causal");
  EXPECT_EQ(c.cases[0].measure.max_samples, 5);  // also wins over the sweep's own value
  EXPECT_EQ(c.defaults.max_samples, 5);
  EXPECT_EQ(c.description, "hello world");
  EXPECT_EQ(c.raw["sweeps"][0]["grid"]["T"], json({1024, 2048}));
  // Re-parsing the echoed raw config gives the same cases.
  const Config again = parse_config(c.raw, "t.json");
  EXPECT_EQ(ids(again), ids(c));
  EXPECT_EQ(again.sha256, c.sha256);
}

TEST(ConfigOverrides, SetTqReplacesT) {
  ConfigOverrides o;
  o.set = {"grid.T_q=1"};
  const Config c = parse_config(base(), "t.json", o);
  ASSERT_EQ(c.cases.size(), 4u);
  EXPECT_EQ(c.cases[0].T_q, 1);
  EXPECT_EQ(c.cases[0].T_k, 128);
}

TEST(ConfigOverrides, BackendsReplaceAndDropChecksThatNoLongerApply) {
  json j = base();
  j["checks"] = json::parse(R"([
    {"name": "keep", "kind": "threshold", "metric": "max_abs_err", "select": {"backend": "fa2"},
     "op": "<", "value": 1e-3},
    {"name": "gone", "kind": "ratio", "metric": "time_median_ms", "numerator": "naive",
     "denominator": "fa2", "op": ">=", "value": 3}
  ])");
  ConfigOverrides o;
  o.backends = {"fa2", "cpu-naive"};
  const Config c = parse_config(j, "t.json", o);
  ASSERT_EQ(c.cases.size(), 4u);
  EXPECT_EQ(c.cases[1].backend, "cpu-naive");
  ASSERT_EQ(c.checks.size(), 1u);
  EXPECT_EQ(c.checks[0].name, "keep");
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_NE(c.notes[0].find("check \"gone\" dropped"), std::string::npos);
  EXPECT_EQ(c.raw["checks"].size(), 1u);
  EXPECT_EQ(parse_config(c.raw, "t.json").checks.size(), 1u);
  // Without overrides the same reference is an error.
  j["sweeps"][0]["backends"] = {"fa2"};
  EXPECT_TRUE(HasError(j, "/checks/1/numerator: no case has backend \"naive\""));
}

TEST(ConfigOverrides, BadSyntaxNamesTheOverride) {
  ConfigOverrides o;
  o.set = {"grid.T"};
  EXPECT_TRUE(HasError(base(), "--set \"grid.T\": expected KEY=VALUE", o));
  o.set = {"=5"};
  EXPECT_TRUE(HasError(base(), "--set \"=5\": expected KEY=VALUE", o));
  o.set = {"measure..x=5"};
  EXPECT_TRUE(HasError(base(), "--set \"measure..x=5\": empty part in key", o));
  o.set = {"grid=5"};
  EXPECT_TRUE(HasError(base(), "--set \"grid=5\": name an axis after \"grid.\"", o));
  o.set = {"name.x=5"};
  EXPECT_TRUE(HasError(base(), "--set \"name.x=5\": cannot set a key inside /name", o));
  o.set = {};
  o.backends = {"fa22"};
  EXPECT_TRUE(HasError(base(), "--backends: unknown backend \"fa22\" (did you mean \"fa2\"?)", o));
  o.backends = {"fa2 cudnn"};
  EXPECT_TRUE(HasError(base(),
                       "--backends: unknown backend \"fa2 cudnn\" (one argument with spaces; "
                       "separate backends with commas: --backends fa2,cudnn)",
                       o));
  // A well-formed override with a bad value is reported by validation, with its pointer.
  o.backends = {};
  o.set = {"grid.T=[0]"};
  EXPECT_TRUE(HasError(base(), "/sweeps/0/grid/T/0: expected a positive integer, got 0", o));
  o.set = {"measure.max_sample=5"};
  EXPECT_TRUE(HasError(base(), "/measure/max_sample: unknown measure setting", o));
}

// ---- files -----------------------------------------------------------------------------------

TEST(ConfigLoad, SyntaxErrorNamesLineAndColumn) {
  const std::string path = ::testing::TempDir() + "/fa2b_bad_syntax.json";
  {
    std::ofstream out(path);
    out << "{\n  \"name\": \"x\",\n  \"sweeps\": [,]\n}\n";
  }
  try {
    load_config(path);
    FAIL() << "no ConfigError";
  } catch (const ConfigError& e) {
    ASSERT_EQ(e.messages().size(), 1u);
    EXPECT_EQ(e.messages()[0].rfind(path + ": JSON syntax error at line 3, column 14: ", 0), 0u)
        << e.messages()[0];
  }
}

TEST(ConfigLoad, MissingFile) {
  try {
    load_config("/nonexistent/fa2b.json");
    FAIL() << "no ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "/nonexistent/fa2b.json: cannot open: No such file or directory");
  }
}

TEST(ConfigLoad, DuplicateKeysAndComments) {
  const std::string path = ::testing::TempDir() + "/fa2b_dup.json";
  {
    std::ofstream out(path);
    out << "{\"sweeps\": [{\"name\": \"s\", \"backends\": [\"fa2\"],\n"
           "  // a comment\n"
           "  \"grid\": {\"T\": 1, \"H\": 1, \"D\": 8, \"T\": 2}}]}\n";
  }
  try {
    load_config(path);
    FAIL() << "no ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), path +
                                         ": /sweeps/0/grid/T: duplicate key \"T\"; each key "
                                         "may appear once in an object");
  }
}

TEST(ConfigShipped, QuickstartFileEqualsBuiltIn) {
  const json file = json::parse(read_file(src("configs/quickstart.json")));
  EXPECT_EQ(file, quickstart_config_json());
  const Config c = parse_config(quickstart_config_json(), "<built-in quickstart>");
  EXPECT_EQ(c.name, "quickstart");
  EXPECT_EQ(c.cases.size(), 6u);
  EXPECT_EQ(c.cases.front().id(), "naive/B1-H4-T128-D64/fp16/causal");
  EXPECT_EQ(c.cases.back().id(), "fa2/B1-H4-T512-D64/fp16/causal");
  EXPECT_EQ(c.checks.size(), 5u);
}

struct Shipped {
  const char* file;
  std::size_t cases;
  std::size_t checks;
};

TEST(ConfigShipped, EachParsesAndExpands) {
  for (const Shipped& s :
       {Shipped{"configs/quickstart.json", 6, 5}, Shipped{"configs/seed_notebook.json", 6, 7},
        Shipped{"configs/seed_article.json", 24, 9}, Shipped{"configs/ci_cpu.json", 68, 6}}) {
    SCOPED_TRACE(s.file);
    const Config c = load_config(src(s.file));
    EXPECT_EQ(c.cases.size(), s.cases);
    EXPECT_EQ(c.checks.size(), s.checks);
    EXPECT_TRUE(c.notes.empty());
    // The echo reproduces the same cases, checks and hash.
    const Config again = parse_config(c.raw, c.path);
    EXPECT_EQ(ids(again), ids(c));
    EXPECT_EQ(again.checks.size(), c.checks.size());
    EXPECT_EQ(again.sha256, c.sha256);
  }
}

TEST(ConfigShipped, SeedArticleLengths) {
  const Config c = load_config(src("configs/seed_article.json"));
  EXPECT_EQ(c.cases.front().id(), "naive/B4-H32-T1024-D128/bf16/causal");
  EXPECT_EQ(c.cases.back().id(), "cudnn/B4-H32-T32768-D128/bf16/causal");
}

TEST(ConfigShipped, BadConfigsEachFailWithTheExpectedMessage) {
  const std::string dir = src("tests/data/bad_configs/");
  std::ifstream list(dir + "expected.txt");
  ASSERT_TRUE(list) << "missing expected.txt";
  std::string line;
  int n = 0;
  while (std::getline(list, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto tab = line.find('\t');
    ASSERT_NE(tab, std::string::npos) << line;
    const std::string file = line.substr(0, tab), want = line.substr(tab + 1);
    SCOPED_TRACE(file);
    try {
      load_config(dir + file);
      ADD_FAILURE() << "parsed without error";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
    }
    ++n;
  }
  EXPECT_GE(n, 12);
}

}  // namespace
}  // namespace fa2b
