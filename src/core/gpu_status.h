// SPDX-License-Identifier: Apache-2.0
// The state of a GPU right now, for `fa2bench devices`: clocks against their maxima, power
// against its limit, and the throttle reasons active. Pure host code: NVML fills it
// (runtime/gpu_state_probe.h), this renders it.
#pragma once

#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "core/gpu_state.h"

namespace fa2b {

struct GpuStatus {
  GpuReading now;  // current clocks, power draw, temperature, throttle reasons
  int max_sm_mhz = -1, max_mem_mhz = -1;
  double power_limit_w = std::numeric_limits<double>::quiet_NaN();  // enforced limit
};

// "SM 1980/1980 MHz, memory 3201/3201 MHz, power 75.3/700 W, 31 C, throttle: gpu_idle";
// unknown values print as "?", no reason active as "throttle: none".
std::string gpu_status_line(const GpuStatus& s);
// The same as JSON; unknown values are null.
nlohmann::json gpu_status_json(const GpuStatus& s);

}  // namespace fa2b
