// SPDX-License-Identifier: Apache-2.0
// The results' gpu_state block from platform readings (core/gpu_state.h).
#include <gtest/gtest.h>

#include "core/gpu_state.h"
#include "core/result.h"
#include "io/results_json.h"

namespace fa2b {
namespace {

GpuReading reading(int sm, double power, double energy, std::uint64_t throttle) {
  GpuReading g;
  g.sm_mhz = sm;
  g.mem_mhz = 3201;
  g.temp_c = 40;
  g.power_w = power;
  g.energy_j = energy;
  g.throttle = throttle;
  g.throttle_known = true;
  return g;
}

TEST(GpuState, ClocksPowerEnergyAndThrottledSamples) {
  const GpuReading start = reading(1980, 120, 1000.0, 0x1);  // idle before the loop
  // Three samples; the second ended under the software power cap (0x4).
  const std::vector<GpuReading> after = {reading(1980, 650, 1002.0, 0x0),
                                         reading(1755, 700, 1004.5, 0x4),
                                         reading(1830, 690, 1006.0, 0x2)};
  const nlohmann::json j = gpu_state_json(start, after, 2e12);
  EXPECT_EQ(j["source"], "nvml");
  EXPECT_EQ(j["samples"], 3);
  EXPECT_EQ(j["sm_clock_mhz"]["min"], 1755);
  EXPECT_EQ(j["sm_clock_mhz"]["median"], 1830);
  EXPECT_EQ(j["sm_clock_mhz"]["max"], 1980);
  EXPECT_EQ(j["sm_clock_mhz"]["start"], 1980);
  EXPECT_EQ(j["power_w"]["max"], 700.0);
  // Idle (0x1) and the application clock setting (0x2) do not mark a sample.
  EXPECT_EQ(j["throttled_samples"], 1);
  EXPECT_EQ(j["throttle_reasons_seen"],
            (std::vector<std::string>{"applications_clocks_setting", "sw_power_cap"}));
  EXPECT_DOUBLE_EQ(j["energy_j"].get<double>(), 6.0);
  EXPECT_DOUBLE_EQ(j["energy_j_per_sample"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(j["tflop_per_j"].get<double>(), 1.0);  // 3 x 2e12 FLOP / 6 J
}

TEST(GpuState, UnknownFieldsAreNullNotZero) {
  GpuReading start;  // a device that answered nothing
  const nlohmann::json j = gpu_state_json(start, {GpuReading{}, GpuReading{}}, 1e9);
  EXPECT_TRUE(j["power_w"].is_null());
  EXPECT_TRUE(j["energy_j"].is_null());
  EXPECT_TRUE(j["tflop_per_j"].is_null());
  EXPECT_TRUE(j["throttled_samples"].is_null());
  EXPECT_TRUE(j["sm_clock_mhz"]["start"].is_null());
}

TEST(GpuState, ReasonNamesCoverUnknownBits) {
  EXPECT_EQ(throttle_reason_names(0x40 | (1ull << 40)),
            (std::vector<std::string>{"hw_thermal_slowdown", "other"}));
}

TEST(GpuState, AbsentBlockRoundTripsThroughResults) {
  CaseResult r;
  r.c.backend = "cpu-flash";
  r.target = "cpu";
  r.gpu_state = gpu_state_absent_json("the cpu target has no GPU state");
  const nlohmann::json j = to_json(r);
  ASSERT_TRUE(j.contains("gpu_state"));
  EXPECT_EQ(j["gpu_state"]["absent"], "the cpu target has no GPU state");
  CaseResult none;
  none.c.backend = "cpu-flash";
  EXPECT_FALSE(to_json(none).contains("gpu_state"));  // a case that timed nothing
}

}  // namespace
}  // namespace fa2b
