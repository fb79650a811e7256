// SPDX-License-Identifier: Apache-2.0
// Throttled samples: flagged from the reading after each sample, dropped under
// measure.drop_throttled, and a case run with a fake probe records what was dropped; the
// sustained phase (measure.sustained_s) and its energy per call; the measured copy bandwidth.
#include <gtest/gtest.h>

#include "backends/backend.h"
#include "config/config.h"
#include "core/gpu_state.h"
#include "core/throttled_samples.h"
#include "io/results_json.h"
#include "probe_platform.h"
#include "runner/case_runner.h"
#include "runner/platform.h"
#include "runner/settle.h"
#include "runner/sweep_runner.h"

namespace fa2b {
namespace {

TEST(ThrottledSamples, IdleAndApplicationClocksDoNotMarkASample) {
  EXPECT_FALSE(is_throttled(with_reasons(0x1)));
  EXPECT_FALSE(is_throttled(with_reasons(0x2)));
  EXPECT_TRUE(is_throttled(with_reasons(0x4)));   // sw_power_cap
  EXPECT_TRUE(is_throttled(with_reasons(0x41)));  // idle and hw_thermal_slowdown
  EXPECT_FALSE(is_throttled(GpuReading{}));       // unknown is not throttled
}

TEST(ThrottledSamples, FlaggedButKeptWithoutDrop) {
  const SampleSelection s =
      select_samples({1.0, 1.5, 1.1}, {with_reasons(0), with_reasons(0x4), with_reasons(1)}, false);
  EXPECT_TRUE(s.known);
  EXPECT_EQ(s.used, (std::vector<double>{1.0, 1.5, 1.1}));
  EXPECT_EQ(s.throttled_at, (std::vector<int>{1}));
  EXPECT_EQ(s.dropped, 0);
}

TEST(ThrottledSamples, DroppedWithDrop) {
  const SampleSelection s = select_samples(
      {1.0, 1.5, 1.1, 1.6},
      {with_reasons(0), with_reasons(0x4), with_reasons(0), with_reasons(0x40)}, true);
  EXPECT_EQ(s.used, (std::vector<double>{1.0, 1.1}));
  EXPECT_TRUE(s.throttled_at.empty());
  EXPECT_EQ(s.dropped, 2);
}

TEST(ThrottledSamples, AllThrottledKeepsAllFlagged) {
  const SampleSelection s = select_samples({1.0, 1.2}, {with_reasons(4), with_reasons(4)}, true);
  EXPECT_EQ(s.used.size(), 2u);
  EXPECT_EQ(s.dropped, 0);
  EXPECT_EQ(s.throttled_at, (std::vector<int>{0, 1}));
}

TEST(ThrottledSamples, UnknownWithoutReadingsOrReasons) {
  EXPECT_FALSE(select_samples({1.0, 2.0}, {}, true).known);
  EXPECT_EQ(select_samples({1.0, 2.0}, {}, true).used.size(), 2u);
  EXPECT_FALSE(select_samples({1.0}, {GpuReading{}}, true).known);
}

// The host platform with a probe whose readings say "power capped" on every other sample.
class ThrottlingPlatform final : public ProbePlatform {
 public:
  explicit ThrottlingPlatform(bool with_probe) : ProbePlatform(with_probe, reading) {}

 private:
  static GpuReading reading(int n) {
    // Reading 0 is the start of the loop; readings 1, 2, ... follow samples 0, 1, ...
    const bool capped = n > 0 && (n - 1) % 2 == 1;
    GpuReading g = with_reasons(capped ? 0x4 : 0x0);
    g.energy_j = 10.0 * n;  // the counter moves 10 J between readings
    return g;
  }
};

Case small_case(bool drop, int keep) {
  Case c = tiny_timed_case(6);  // six samples exactly
  c.measure.drop_throttled = drop;
  c.measure.keep_samples = keep;
  return c;
}

TEST(ThrottledSamples, RunnerDropsThrottledSamplesAndRecordsTheCount) {
  ThrottlingPlatform platform(true);
  auto backend = make_backend("cpu-flash");
  const CaseResult r = run_case(small_case(true, kMaxKeptSamples), *backend, platform);
  ASSERT_EQ(r.status, Status::ok) << r.reason;
  // Samples 1, 3, 5 were taken under the power cap: three re-taken after the cool-down (the
  // first reading after the loop is clear: no wait), of which the 2nd is clear (readings
  // alternate), so 0, 2, 4 and that one are used and five left out.
  EXPECT_EQ(r.time.retaken_throttled, 3);
  EXPECT_EQ(r.time.cooldown_s, 0.0);
  EXPECT_EQ(r.time.n, 4);
  EXPECT_EQ(r.time.dropped_throttled, 5);
  EXPECT_EQ(r.time.samples.size(), 4u);
  EXPECT_TRUE(r.time.throttled_at.empty());
  const nlohmann::json j = to_json(r);
  EXPECT_EQ(j["time_ms"]["dropped_throttled"], 5);
  EXPECT_EQ(j["time_ms"]["retaken_throttled"], 3);
  EXPECT_EQ(j["measure"]["drop_throttled"], true);
}

// A card at its cap through the samples (1, 3, 5) and for two readings after them, clear from
// then on: the runner idles until the cap clears (two polls of kSettlePollSeconds) and takes
// three replacements, so the statistics hold six samples again, none throttled.
class CoolingPlatform final : public ProbePlatform {
 public:
  CoolingPlatform() : ProbePlatform(true, reading) {}

 private:
  static GpuReading reading(int n) {
    const bool capped = (n >= 1 && n <= 6 && (n - 1) % 2 == 1) || n == 7 || n == 8;
    return with_reasons(capped ? 0x4 : 0x0);
  }
};

TEST(ThrottledSamples, RunnerRetakesThrottledSamplesAfterTheCardCools) {
  CoolingPlatform platform;
  auto backend = make_backend("cpu-flash");
  const CaseResult r = run_case(small_case(true, kMaxKeptSamples), *backend, platform);
  ASSERT_EQ(r.status, Status::ok) << r.reason;
  EXPECT_EQ(r.time.retaken_throttled, 3);
  EXPECT_NEAR(r.time.cooldown_s, 2 * kSettlePollSeconds, 1e-9);
  EXPECT_EQ(r.time.n, 6);
  EXPECT_EQ(r.time.dropped_throttled, 3);
  EXPECT_TRUE(r.time.throttled_at.empty());
  const nlohmann::json j = to_json(r);
  EXPECT_EQ(j["time_ms"]["retaken_throttled"], 3);
  EXPECT_NEAR(j["time_ms"]["cooldown_s"].get<double>(), 2 * kSettlePollSeconds, 1e-9);
}

// Without drop_throttled nothing is re-taken (the fields stay unrecorded).
TEST(ThrottledSamples, NoRetakeWithoutDrop) {
  CoolingPlatform platform;
  auto backend = make_backend("cpu-flash");
  const CaseResult r = run_case(small_case(false, 0), *backend, platform);
  ASSERT_EQ(r.status, Status::ok) << r.reason;
  EXPECT_EQ(r.time.n, 6);
  EXPECT_EQ(r.time.retaken_throttled, -1);
  EXPECT_FALSE(to_json(r)["time_ms"].contains("retaken_throttled"));
}

TEST(ThrottledSamples, RunnerFlagsWithoutDropping) {
  ThrottlingPlatform platform(true);
  auto backend = make_backend("cpu-flash");
  const CaseResult r = run_case(small_case(false, 4), *backend, platform);
  ASSERT_EQ(r.status, Status::ok) << r.reason;
  EXPECT_EQ(r.time.n, 6);
  EXPECT_EQ(r.time.throttled_at, (std::vector<int>{1, 3, 5}));
  EXPECT_EQ(r.time.samples.size(), 4u);  // keep_samples 4
  EXPECT_EQ(r.time.dropped_throttled, -1);
  const nlohmann::json j = to_json(r);
  EXPECT_FALSE(j["time_ms"].contains("dropped_throttled"));
  EXPECT_EQ(j["time_ms"]["throttled_at"], (std::vector<int>{1, 3, 5}));
}

TEST(ThrottledSamples, RunnerWithoutProbeRecordsWhyNothingWasDropped) {
  ThrottlingPlatform platform(false);
  auto backend = make_backend("cpu-flash");
  const CaseResult r = run_case(small_case(true, 0), *backend, platform);
  ASSERT_EQ(r.status, Status::ok) << r.reason;
  EXPECT_EQ(r.time.n, 6);
  EXPECT_TRUE(r.time.samples.empty());  // keep_samples 0
  const nlohmann::json j = to_json(r);
  EXPECT_FALSE(j["time_ms"].contains("samples"));
  EXPECT_FALSE(j["time_ms"].contains("dropped_throttled"));
  EXPECT_EQ(j["time_ms"]["dropped_throttled_absent"], "no probe in this test");
}

TEST(SustainedPhase, EnergyPerCallFromTheCounterAcrossTheCalls) {
  GpuReading before = with_reasons(0);
  before.energy_j = 1000.0;
  GpuReading after = with_reasons(0x4 | 0x1);  // power capped at the end (and idle, not counted)
  after.energy_j = 1600.0;
  after.temp_c = 61;
  const nlohmann::json j = gpu_sustained_json(before, after, 300, 1500.0, 2e12);
  EXPECT_EQ(j["calls"], 300);
  EXPECT_DOUBLE_EQ(j["seconds"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(j["ms_per_call"].get<double>(), 5.0);
  EXPECT_DOUBLE_EQ(j["tflops"].get<double>(), 400.0);
  EXPECT_DOUBLE_EQ(j["energy_j_per_call"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(j["power_w_mean"].get<double>(), 400.0);
  EXPECT_DOUBLE_EQ(j["tflop_per_j"].get<double>(), 1.0);
  EXPECT_EQ(j["sm_clock_mhz_end"], 1980);
  EXPECT_EQ(j["temperature_c_end"], 61);
  EXPECT_EQ(j["throttle_reasons_end"], (std::vector<std::string>{"sw_power_cap"}));
}

TEST(SustainedPhase, UnknownCounterAndReasonsAreNull) {
  const nlohmann::json j = gpu_sustained_json(GpuReading{}, GpuReading{}, 10, 5.0, 1e9);
  EXPECT_TRUE(j["energy_j_per_call"].is_null());
  EXPECT_TRUE(j["power_w_mean"].is_null());
  EXPECT_TRUE(j["tflop_per_j"].is_null());
  EXPECT_TRUE(j["throttle_reasons_end"].is_null());
  EXPECT_TRUE(j["sm_clock_mhz_end"].is_null());
  EXPECT_EQ(j["calls"], 10);
}

TEST(SustainedPhase, RunnerAddsTheBlockOnlyWhenAskedAndProbed) {
  auto backend = make_backend("cpu-flash");
  Case c = small_case(false, 0);
  {
    ThrottlingPlatform platform(true);
    const CaseResult r = run_case(c, *backend, platform);  // sustained_s 0: off
    ASSERT_EQ(r.status, Status::ok) << r.reason;
    EXPECT_FALSE(r.gpu_state.contains("sustained"));
    EXPECT_FALSE(to_json(r)["measure"].contains("sustained_s"));
  }
  c.measure.sustained_s = 0.02;
  {
    ThrottlingPlatform platform(true);
    const CaseResult r = run_case(c, *backend, platform);
    ASSERT_EQ(r.status, Status::ok) << r.reason;
    ASSERT_TRUE(r.gpu_state.contains("sustained")) << r.gpu_state.dump();
    const nlohmann::json& s = r.gpu_state["sustained"];
    const long long calls = s["calls"].get<long long>();
    EXPECT_GE(calls, 1);
    // Enough calls to fill the asked time at the sampled median, and 10 J across all of them.
    EXPECT_GE(static_cast<double>(calls) * r.time.median, 20.0 * 0.999);
    EXPECT_NEAR(s["energy_j_per_call"].get<double>() * static_cast<double>(calls), 10.0, 1e-9);
    const nlohmann::json j = to_json(r);
    EXPECT_DOUBLE_EQ(j["measure"]["sustained_s"].get<double>(), 0.02);
    EXPECT_EQ(j["gpu_state"]["sustained"]["calls"], calls);
  }
  {
    ThrottlingPlatform platform(false);
    const CaseResult r = run_case(c, *backend, platform);
    ASSERT_EQ(r.status, Status::ok) << r.reason;
    EXPECT_FALSE(r.gpu_state.contains("sustained"));
    EXPECT_EQ(r.gpu_state["absent"], "no probe in this test");
  }
}

// One small case through the in-process sweep on `platform`.
ResultSet one_case_sweep(Platform& platform) {
  Config config;
  config.name = "copy_bw";
  SweepOptions options;
  options.progress = false;
  return run_sweep(source_of(config), {small_case(false, 0)}, platform, options);
}

TEST(CopyBandwidth, CasesAndTheDeviceBlockCarryTheMeasurement) {
  ThrottlingPlatform platform(true);
  const ResultSet rs = one_case_sweep(platform);
  ASSERT_EQ(rs.cases.size(), 1u);
  const CaseResult& r = rs.cases[0];
  ASSERT_EQ(r.status, Status::ok) << r.reason;
  EXPECT_EQ(r.copy_bw_gbs, 4000.0);
  EXPECT_DOUBLE_EQ(r.pct_of_copy_bw, 100 * r.gbps / 4000.0);
  EXPECT_EQ(rs.device["copy_bw_gbs"], 4000.0);
  EXPECT_TRUE(rs.device.contains("copy_bw_source"));
  EXPECT_FALSE(rs.device.contains("copy_bw_absent"));
  const nlohmann::json j = to_json(r);
  EXPECT_DOUBLE_EQ(j["pct_of_copy_bw"].get<double>(), r.pct_of_copy_bw);
}

TEST(CopyBandwidth, AbsentWithAReasonNotZero) {
  ThrottlingPlatform platform(false);  // the host platform's answer: none
  const ResultSet rs = one_case_sweep(platform);
  ASSERT_EQ(rs.cases.size(), 1u);
  EXPECT_FALSE(std::isfinite(rs.cases[0].copy_bw_gbs));
  const nlohmann::json j = to_json(rs.cases[0]);
  EXPECT_FALSE(j.contains("copy_bw_gbs"));
  EXPECT_FALSE(j.contains("pct_of_copy_bw"));
  EXPECT_FALSE(rs.device.contains("copy_bw_gbs"));
  EXPECT_EQ(rs.device["copy_bw_absent"], "the cpu target has no device memory to probe");
}

}  // namespace
}  // namespace fa2b
