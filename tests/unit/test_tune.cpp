// SPDX-License-Identifier: Apache-2.0
// `fa2bench tune` without a GPU: the case parameter `variant`, the expansion of a config's fa2
// cases into one case per variant, the ranking of ordinary results, and a whole tune run on the
// CPU target through a toy dev-variant backend, "cpu-dev" (two variants of cpu-flash), whose
// cases end up in the ordinary results.json.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/tune.h"
#include "backends/backend.h"
#include "backends/cpu_backends.h"
#include "cli/commands.h"
#include "cli/tune_command.h"
#include "config/config.h"
#include "core/shape_algebra.h"
#include "io/results_json.h"

namespace fa2b {
namespace {

namespace fs = std::filesystem;

// Two variants at every D: both run cpu-flash (as fa2-dev's variants all compute attention).
class CpuDev final : public Backend {
 public:
  std::string_view name() const override { return "cpu-dev"; }
  bool on_device() const override { return false; }
  Support supports(const Case& c, const TargetInfo& t) const override {
    if (c.variant >= 2) return Support::no("cpu-dev variant out of range");
    Case flash = c;
    flash.backend = "cpu-flash";
    flash.variant = 0;
    const Support s = inner_->supports(flash, t);
    return s.ok ? catalog_mode_support(c, name()) : s;
  }
  void prepare(const Case& c, const AttnParams& p, MemoryTracker& tracker) override {
    variant_ = c.variant;
    inner_->prepare(c, p, tracker);
  }
  std::string info() const override {
    return "variant " + std::to_string(variant_) + ": toy-v" + std::to_string(variant_);
  }
  void run(const AttnParams& p, void* stream) override { inner_->run(p, stream); }
  void release() override { inner_->release(); }
  int variant_count(std::int64_t) const override { return 2; }

 private:
  std::unique_ptr<Backend> inner_ = make_cpu_flash_backend();
  int variant_ = 0;
};

void register_cpu_dev() {
  static const bool registered = [] {
    BackendEntry e;
    e.name = "cpu-dev";
    e.device = BackendDevice::cpu;
    e.scores = ScoreStorage::streams;
    e.backward_workspace_bytes = row_sums_bytes;
    e.backward_workspace_note = "none (forward only)";
    e.modes = {Mode::fwd};
    e.description = "test only: cpu-flash as a dev-variant backend with two variants";
    e.variants = true;
    e.variant_count = [](std::int64_t) { return 2; };
    register_backend(e, [] { return std::unique_ptr<Backend>(new CpuDev()); });
    return true;
  }();
  (void)registered;
}

// Two sweeps naming fa2 (one shape in both), naive beside it, an fp32 case and a training one.
const char* kConfig = R"({
  "name": "tiny",
  "defaults": {"H": 2, "D": 32, "dtype": "fp16", "causal": true},
  "measure": {"warmup": 0, "min_samples": 2, "max_samples": 3, "verify_rows": 8},
  "sweeps": [
    {"name": "a", "backends": ["naive", "fa2"], "grid": {"T": [17, 40]}},
    {"name": "b", "backends": ["fa2"], "grid": {"T": [40], "dtype": ["fp16", "fp32"]}},
    {"name": "c", "backends": ["fa2"], "grid": {"T": [23], "mode": "fwd_bwd"}}
  ],
  "checks": [{"name": "fast", "kind": "ratio", "metric": "time_median_ms",
              "numerator": "naive", "denominator": "fa2", "op": ">=", "value": 1}]
})";

Config parse(const char* text) {
  return parse_config(nlohmann::json::parse(text), "t.json", {});
}

std::vector<std::string> config_errors(const char* text) {
  try {
    parse(text);
  } catch (const ConfigError& e) {
    return e.messages();
  }
  return {};
}

TEST(TuneVariant, OnlyInTheIdAndParamsWhenSetOrOfADevBackend) {
  Case c;
  c.backend = c.role = "fa2-dev";
  c.H = c.H_kv = 2;
  c.T_q = c.T_k = 64;
  c.D = 128;
  EXPECT_EQ(c.id(), "fa2-dev/B1-H2-T64-D128/fp16/full");
  EXPECT_EQ(params_json(c)["variant"], 0);
  c.variant = 3;
  EXPECT_EQ(c.id(), "fa2-dev/B1-H2-T64-D128/fp16/full/v3");
  EXPECT_EQ(params_json(c)["variant"], 3);
  // Other backends' ids and params are those of before.
  c.backend = c.role = "fa2";
  c.variant = 0;
  EXPECT_EQ(c.id(), "fa2/B1-H2-T64-D128/fp16/full");
  EXPECT_FALSE(params_json(c).contains("variant"));
  // Through a results file and back (isolated cases travel so).
  CaseResult r;
  r.c = c;
  r.c.backend = r.c.role = "fa2-dev";
  r.c.variant = 5;
  EXPECT_EQ(case_result_from_json(to_json(r)).c.variant, 5);
}

TEST(TuneVariant, ConfigRefusesItForOtherBackendsAndBeyondAKnownCount) {
  register_cpu_dev();
  const auto fa2 = config_errors(R"({"defaults": {"H": 2, "D": 32, "T": 16},
    "sweeps": [{"name": "s", "backends": ["fa2"], "grid": {"variant": [0, 1]}}]})");
  ASSERT_EQ(fa2.size(), 1u);
  EXPECT_NE(fa2[0].find("/sweeps/0/grid/variant"), std::string::npos) << fa2[0];
  EXPECT_NE(fa2[0].find("backend \"fa2\", which has no variants"), std::string::npos) << fa2[0];
  const auto range = config_errors(R"({"defaults": {"H": 2, "D": 32, "T": 16},
    "sweeps": [{"name": "s", "backends": ["cpu-dev"], "grid": {"variant": [1, 2]}}]})");
  ASSERT_EQ(range.size(), 1u);
  EXPECT_NE(range[0].find("variant 2 is out of range for backend \"cpu-dev\" at D = 32 "
                          "(variants 0..1)"),
            std::string::npos)
      << range[0];
  const auto negative = config_errors(R"({"defaults": {"H": 2, "D": 32, "T": 16},
    "sweeps": [{"name": "s", "backends": ["fa2-dev"], "grid": {"variant": -1}}]})");
  ASSERT_EQ(negative.size(), 1u);
  EXPECT_NE(negative[0].find("/sweeps/0/grid/variant"), std::string::npos) << negative[0];
  // fa2-dev's count is the build's: any variant passes the config, supports() judges it.
  const Config ok = parse(R"({"defaults": {"H": 2, "D": 128, "T": 16},
    "sweeps": [{"name": "s", "backends": ["fa2-dev"], "grid": {"variant": [0, 7]}}]})");
  ASSERT_EQ(ok.cases.size(), 2u);
  EXPECT_EQ(ok.cases[1].id(), "fa2-dev/B1-H2-T16-D128/fp16/full/v7");
}

TEST(TuneExpansion, OneCasePerVariantOfEachDistinctFa2Shape) {
  register_cpu_dev();
  const Config config = parse(kConfig);
  const TuneExpansion x =
      expand_tune_config(config, "fa2", "cpu-dev", [](std::int64_t) { return 2; });
  EXPECT_EQ(x.shapes, 3u);  // T 17, T 40 (once), T 23 as its forward; fp32 left out
  EXPECT_EQ(x.max_variants, 2u);
  ASSERT_EQ(x.notes.size(), 1u);
  EXPECT_NE(x.notes[0].find("B1-H2-T40-D32/fp32/causal: fp32 is not tuned"), std::string::npos);
  const Config tuned = parse_config(x.raw, "t.json (tune)");
  EXPECT_TRUE(tuned.checks.empty());
  std::vector<std::string> ids;
  for (const Case& c : tuned.cases) {
    ids.push_back(c.id());
    EXPECT_EQ(params_json(c)["variant"], c.variant);
    EXPECT_EQ(c.measure.max_samples, 3);
    EXPECT_EQ(c.measure.verify_rows, 8);
  }
  const std::vector<std::string> want = {
      "cpu-dev/B1-H2-T17-D32/fp16/causal", "cpu-dev/B1-H2-T17-D32/fp16/causal/v1",
      "cpu-dev/B1-H2-T40-D32/fp16/causal", "cpu-dev/B1-H2-T40-D32/fp16/causal/v1",
      "cpu-dev/B1-H2-T23-D32/fp16/causal", "cpu-dev/B1-H2-T23-D32/fp16/causal/v1"};
  EXPECT_EQ(ids, want);
  EXPECT_EQ(tuned.cases[0].sweep, "a#1");
  // A D without variants is left out, with the reason.
  const TuneExpansion none =
      expand_tune_config(config, "fa2", "cpu-dev", [](std::int64_t) { return 0; });
  EXPECT_EQ(none.shapes, 0u);
  EXPECT_EQ(none.notes.size(), 4u);
}

// An ordinary results file (as sweep writes it, trimmed to what the ranking reads).
const char* kResults = R"json({
  "schema": "fa2bench/results/1",
  "config": {"path": "perf.json (tune)"},
  "cases": [
    {"backend": "fa2", "status": "ok",
     "params": {"B": 1, "H": 8, "T_q": 1024, "T_k": 1024, "D": 128, "dtype": "bf16", "causal": true},
     "time_ms": {"median": 0.5}},
    {"backend": "fa2-dev", "status": "ok", "backend_info": "variant 0: shipped",
     "params": {"B": 1, "H": 8, "T_q": 1024, "T_k": 1024, "D": 128, "dtype": "bf16",
                "causal": true, "variant": 0},
     "time_ms": {"median": 0.40}, "tflops": 100.0,
     "accuracy": {"checked": true, "max_abs_err": 0.001, "nonfinite": 0}},
    {"backend": "fa2-dev", "status": "ok", "backend_info": "variant 1: 4wx2 128x32 s1 head",
     "params": {"B": 1, "H": 8, "T_q": 1024, "T_k": 1024, "D": 128, "dtype": "bf16",
                "causal": true, "variant": 1},
     "time_ms": {"median": 0.32}, "tflops": 125.0,
     "accuracy": {"checked": true, "max_abs_err": 0.002, "nonfinite": 0}},
    {"backend": "fa2-dev", "status": "ok", "backend_info": "variant 2: 8wx1 128x64 qreg s1 head",
     "params": {"B": 1, "H": 8, "T_q": 1024, "T_k": 1024, "D": 128, "dtype": "bf16",
                "causal": true, "variant": 2},
     "time_ms": {"median": 0.20}, "tflops": 200.0,
     "accuracy": {"checked": true, "max_abs_err": 0.5, "nonfinite": 0}},
    {"backend": "fa2-dev", "status": "error", "reason": "too many resources requested",
     "backend_info": "variant 3: 8wx1 128x64 qreg s2 head",
     "params": {"B": 1, "H": 8, "T_q": 1024, "T_k": 1024, "D": 128, "dtype": "bf16",
                "causal": true, "variant": 3}},
    {"backend": "fa2-dev", "status": "ok", "backend_info": "variant 4: 4wx1 64x64 qreg s1 head",
     "params": {"B": 1, "H": 8, "T_q": 1024, "T_k": 1024, "D": 128, "dtype": "bf16",
                "causal": true, "variant": 4},
     "time_ms": {"median": 0.36}, "tflops": 111.1,
     "accuracy": {"checked": true, "max_abs_err": 0.001, "nonfinite": 0}},
    {"backend": "fa2-dev", "status": "ok", "backend_info": "variant 0: shipped",
     "params": {"B": 1, "H": 8, "T_q": 512, "T_k": 512, "D": 64, "dtype": "fp16",
                "causal": false, "variant": 0},
     "time_ms": {"median": 0.1}, "tflops": 50.0,
     "accuracy": {"checked": true, "max_abs_err": 0.001, "nonfinite": 0}}
  ]
})json";

TEST(TuneRanking, ReadsOrdinaryResults) {
  const ResultSet rs = result_set_from_json(nlohmann::json::parse(kResults));
  const std::vector<TuneRow> rows = rank_tune_results(rs);
  ASSERT_EQ(rows.size(), 6u);  // the fa2 case is not a variant
  const std::string shape = "B1-H8-T1024-D128/bf16/causal";
  // Ok and matching by median time, then the rest by variant.
  const std::vector<int> order = {1, 4, 0, 2, 3};
  for (std::size_t i = 0; i < order.size(); ++i) {
    EXPECT_EQ(rows[i].shape, shape);
    EXPECT_EQ(rows[i].variant, order[i]) << i;
  }
  EXPECT_TRUE(rows[0].winner);
  EXPECT_EQ(rows[0].verdict, "winner");
  EXPECT_EQ(rows[0].name, "4wx2 128x32 s1 head");
  EXPECT_DOUBLE_EQ(rows[0].speedup, 0.40 / 0.32);
  EXPECT_FALSE(rows[1].winner);
  EXPECT_EQ(rows[1].verdict, "");
  EXPECT_NE(rows[3].verdict.find("MISMATCH"), std::string::npos) << rows[3].verdict;
  EXPECT_FALSE(rows[3].winner);  // fastest, but wrong
  EXPECT_EQ(rows[4].verdict, "error: too many resources requested");
  EXPECT_EQ(rows[5].shape, "B1-H8-T512-D64/fp16/full");
  EXPECT_TRUE(rows[5].winner);

  const std::string md = tune_markdown(rows, rs.config_path);
  EXPECT_NE(md.find("# fa2bench tune: perf.json (tune)"), std::string::npos);
  EXPECT_NE(md.find("| B1-H8-T1024-D128/bf16/causal | 1 4wx2 128x32 s1 head | 0.3200 | 125.0 | "
                    "1.250 |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| B1-H8-T1024-D128/bf16/causal | 1 4wx2 128x32 s1 head | 0.3200 | 125.0 | "
                    "1.250 | 2.0e-03 | **winner** |"),
            std::string::npos)
      << md;
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(TuneCommand, RunsThroughTheSweepIntoOrdinaryResults) {
  register_cpu_dev();
  const fs::path dir = fs::temp_directory_path() / ("fa2bench_tune_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  { std::ofstream(dir / "tiny.json") << kConfig; }
  TuneArgs a;
  a.config = (dir / "tiny.json").string();
  a.out = (dir / "out").string();
  a.target = "cpu";
  a.quiet = true;
  a.dev_backend = "cpu-dev";
  a.filter = "T(17|40)";
  ASSERT_EQ(run_tune_command(a), kExitOk);

  const ResultSet rs = load_results((dir / "out" / "results.json").string());
  EXPECT_EQ(rs.config_path, a.config + " (tune)");
  EXPECT_TRUE(rs.checks.empty());  // the config's checks name cases tune does not run
  std::vector<std::string> ids;
  for (const CaseResult& r : rs.cases) {
    ids.push_back(r.c.id());
    EXPECT_EQ(r.status, Status::ok) << r.c.id() << ": " << r.reason;
    EXPECT_TRUE(r.accuracy.checked) << r.c.id();
    EXPECT_GE(r.time.n, 2) << r.c.id();
    EXPECT_GT(r.memory.peak_bytes, 0) << r.c.id();
    EXPECT_EQ(r.backend_info,
              "variant " + std::to_string(r.c.variant) + ": toy-v" + std::to_string(r.c.variant));
  }
  const std::vector<std::string> want = {
      "cpu-dev/B1-H2-T17-D32/fp16/causal", "cpu-dev/B1-H2-T17-D32/fp16/causal/v1",
      "cpu-dev/B1-H2-T40-D32/fp16/causal", "cpu-dev/B1-H2-T40-D32/fp16/causal/v1"};
  EXPECT_EQ(ids, want);
  // The echo is the tune config: check reads it like any other.
  const Config echoed = parse_config(rs.config_echo, "echo");
  EXPECT_EQ(echoed.cases.size(), 6u);
  for (const char* f : {"results.csv", "summary.md", "results.jsonl", "sweep.json", "tune.md"})
    EXPECT_TRUE(fs::exists(dir / "out" / f)) << f;
  const std::string md = slurp(dir / "out" / "tune.md");
  EXPECT_NE(md.find("## Winners"), std::string::npos) << md;
  EXPECT_NE(md.find("| B1-H2-T17-D32/fp16/causal | "), std::string::npos) << md;
  EXPECT_NE(md.find("**winner**"), std::string::npos) << md;

  // A second run into the same --out is refused as sweep refuses it, unless --overwrite.
  EXPECT_EQ(run_tune_command(a), kExitUsage);
  a.overwrite = true;
  EXPECT_EQ(run_tune_command(a), kExitOk);
  fs::remove_all(dir);
}

TEST(TuneCommand, Fa2DevWithoutVariantsExits2) {
  const auto dev = make_backend("fa2-dev");
  ASSERT_NE(dev, nullptr);
  if (dev->variant_count(128) > 1) GTEST_SKIP() << "this build has the fa2 tuning variants";
  const fs::path dir =
      fs::temp_directory_path() / ("fa2bench_tune_none_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  { std::ofstream(dir / "tiny.json") << kConfig; }
  TuneArgs a;
  a.config = (dir / "tiny.json").string();
  a.out = (dir / "out").string();
  a.target = "cpu";
  a.quiet = true;
  EXPECT_EQ(run_tune_command(a), kExitUsage);
  EXPECT_FALSE(fs::exists(dir / "out" / "results.json"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace fa2b
