// SPDX-License-Identifier: Apache-2.0
// `fa2bench devices`' NVML line and JSON from a status NVML would give.
#include <gtest/gtest.h>

#include "core/gpu_status.h"
#include "runtime/gpu_state_probe.h"

namespace fa2b {
namespace {

GpuStatus capped_h200() {
  GpuStatus s;
  s.now.sm_mhz = 1755;
  s.now.mem_mhz = 3201;
  s.now.temp_c = 61;
  s.now.power_w = 699.6;
  s.now.throttle = 0x4;  // sw_power_cap
  s.now.throttle_known = true;
  s.max_sm_mhz = 1980;
  s.max_mem_mhz = 3201;
  s.power_limit_w = 700;
  return s;
}

TEST(GpuStatus, LineShowsClocksPowerAndThrottle) {
  EXPECT_EQ(gpu_status_line(capped_h200()),
            "SM 1755/1980 MHz, memory 3201/3201 MHz, power 700/700 W, 61 C, throttle: "
            "sw_power_cap");
  GpuStatus idle = capped_h200();
  idle.now.throttle = 0;
  EXPECT_NE(gpu_status_line(idle).find("throttle: none"), std::string::npos);
}

TEST(GpuStatus, UnknownValuesAreMarkedNotZero) {
  const GpuStatus none;  // a device that answered nothing
  EXPECT_EQ(gpu_status_line(none), "SM ?/? MHz, memory ?/? MHz, power ?/? W, throttle: ?");
  const nlohmann::json j = gpu_status_json(none);
  EXPECT_TRUE(j["power_limit_w"].is_null());
  EXPECT_TRUE(j["throttle_reasons"].is_null());
  EXPECT_TRUE(j["max_sm_clock_mhz"].is_null());
}

TEST(GpuStatus, JsonNamesTheReasons) {
  const nlohmann::json j = gpu_status_json(capped_h200());
  EXPECT_EQ(j["power_limit_w"], 700.0);
  EXPECT_EQ(j["max_sm_clock_mhz"], 1980);
  EXPECT_EQ(j["throttle_reasons"], std::vector<std::string>{"sw_power_cap"});
}

#ifndef FA2BENCH_WITH_CUDA
TEST(GpuStatus, WithoutCudaNvmlIsAbsentWithAReason) {
  GpuStatus s;
  std::string why;
  EXPECT_FALSE(read_gpu_status("0000:19:00.0", s, &why));
  EXPECT_NE(why.find("no CUDA support"), std::string::npos) << why;
}
#endif

}  // namespace
}  // namespace fa2b
