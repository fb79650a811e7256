// SPDX-License-Identifier: Apache-2.0
// The state of the GPU while a case's timed samples ran (clocks, power, temperature, throttle
// reasons, energy), from readings the platform takes around the samples (NVML on the cuda
// target). Pure host code: the readings come in, the results' `gpu_state` block goes out.
#pragma once

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace fa2b {

// One reading; -1 / NaN where the device did not answer that query.
struct GpuReading {
  int sm_mhz = -1, mem_mhz = -1, temp_c = -1;
  double power_w = std::numeric_limits<double>::quiet_NaN();
  double energy_j = std::numeric_limits<double>::quiet_NaN();  // counter since driver load
  std::uint64_t throttle = 0;  // NVML clock event (throttle) reason bits
  bool throttle_known = false;
};

// Reason bits that do not mark a sample: the GPU idling between samples and the application
// clock setting (always set where application clocks are configured).
inline constexpr std::uint64_t kThrottleNotCounted = 0x1 | 0x2;

// Names of the set reason bits ("sw_power_cap", "hw_thermal_slowdown", ...), in bit order.
std::vector<std::string> throttle_reason_names(std::uint64_t bits);

// The `gpu_state` block: `start` before the first timed sample, `after` one reading after each
// sample (the state the sample ended in), `flops_per_sample` the case's FLOPs.
nlohmann::json gpu_state_json(const GpuReading& start, const std::vector<GpuReading>& after,
                              double flops_per_sample);
// The `sustained` block: `calls` back-to-back calls took `ms` (one event pair around them all),
// `before` and `after` read around them. Energy per call comes from the counter's difference;
// the state at the end is the sustained one (clocks, temperature, throttle reasons).
nlohmann::json gpu_sustained_json(const GpuReading& before, const GpuReading& after,
                                  long long calls, double ms, double flops_per_call);
// The block where there are no readings: {"absent": why}.
nlohmann::json gpu_state_absent_json(const std::string& why);

}  // namespace fa2b
