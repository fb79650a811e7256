// SPDX-License-Identifier: Apache-2.0
#include "core/gpu_status.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

namespace fa2b {
namespace {

std::string mhz(int v) {
  return v >= 0 ? std::to_string(v) : "?";
}
std::string watts(double v) {
  return std::isfinite(v) ? fmt::format("{:.0f}", v) : "?";
}
nlohmann::json int_or_null(int v) {
  return v >= 0 ? nlohmann::json(v) : nlohmann::json(nullptr);
}
nlohmann::json number_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

std::string throttle_text(const GpuReading& r) {
  if (!r.throttle_known) return "?";
  const std::vector<std::string> names = throttle_reason_names(r.throttle);
  return names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace

std::string gpu_status_line(const GpuStatus& s) {
  const std::string temp = s.now.temp_c >= 0 ? fmt::format(", {} C", s.now.temp_c) : "";
  return fmt::format("SM {}/{} MHz, memory {}/{} MHz, power {}/{} W{}, throttle: {}",
                     mhz(s.now.sm_mhz), mhz(s.max_sm_mhz), mhz(s.now.mem_mhz), mhz(s.max_mem_mhz),
                     watts(s.now.power_w), watts(s.power_limit_w), temp, throttle_text(s.now));
}

nlohmann::json gpu_status_json(const GpuStatus& s) {
  nlohmann::json j = {{"sm_clock_mhz", int_or_null(s.now.sm_mhz)},
                      {"max_sm_clock_mhz", int_or_null(s.max_sm_mhz)},
                      {"mem_clock_mhz", int_or_null(s.now.mem_mhz)},
                      {"max_mem_clock_mhz", int_or_null(s.max_mem_mhz)},
                      {"power_w", number_or_null(s.now.power_w)},
                      {"power_limit_w", number_or_null(s.power_limit_w)},
                      {"temperature_c", int_or_null(s.now.temp_c)}};
  j["throttle_reasons"] = s.now.throttle_known
                              ? nlohmann::json(throttle_reason_names(s.now.throttle))
                              : nlohmann::json(nullptr);
  return j;
}

}  // namespace fa2b
