// SPDX-License-Identifier: Apache-2.0
#include "core/gpu_state.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <type_traits>

namespace fa2b {
namespace {

// NVML's nvmlClocksEventReason* bits, in bit order.
constexpr const char* kReasonNames[] = {"gpu_idle",
                                        "applications_clocks_setting",
                                        "sw_power_cap",
                                        "hw_slowdown",
                                        "sync_boost",
                                        "sw_thermal_slowdown",
                                        "hw_thermal_slowdown",
                                        "hw_power_brake_slowdown",
                                        "display_clock_setting"};

template <class T, class Get>
nlohmann::json min_median_max(const std::vector<GpuReading>& rs, Get get, T missing) {
  std::vector<T> v;
  for (const GpuReading& r : rs) {
    const T x = get(r);
    if (x != missing && !(std::is_floating_point_v<T> && std::isnan(static_cast<double>(x))))
      v.push_back(x);
  }
  if (v.empty()) return nullptr;
  std::sort(v.begin(), v.end());
  return {{"min", v.front()}, {"median", v[v.size() / 2]}, {"max", v.back()}};
}

nlohmann::json value_or_null(int x) {
  return x >= 0 ? nlohmann::json(x) : nlohmann::json(nullptr);
}

}  // namespace

std::vector<std::string> throttle_reason_names(std::uint64_t bits) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < std::size(kReasonNames); ++i) {
    if (bits & (std::uint64_t{1} << i)) out.emplace_back(kReasonNames[i]);
  }
  const std::uint64_t known = (std::uint64_t{1} << std::size(kReasonNames)) - 1;
  if (bits & ~known) out.push_back("other");
  return out;
}

nlohmann::json gpu_state_json(const GpuReading& start, const std::vector<GpuReading>& after,
                              double flops_per_sample) {
  nlohmann::json j = {{"source", "nvml"}, {"samples", after.size()}};
  const GpuReading end = after.empty() ? start : after.back();
  nlohmann::json sm = min_median_max<int>(
      after, [](const GpuReading& r) { return r.sm_mhz; }, -1);
  if (sm.is_null()) sm = nlohmann::json::object();
  sm["start"] = value_or_null(start.sm_mhz);
  sm["end"] = value_or_null(end.sm_mhz);
  j["sm_clock_mhz"] = sm;
  j["mem_clock_mhz"] = {{"start", value_or_null(start.mem_mhz)},
                        {"end", value_or_null(end.mem_mhz)}};
  j["power_w"] = min_median_max<double>(
      after, [](const GpuReading& r) { return r.power_w; }, -1.0);
  j["temperature_c"] = {{"start", value_or_null(start.temp_c)}, {"end", value_or_null(end.temp_c)}};

  std::uint64_t seen = 0;
  int throttled = 0;
  bool known = false;
  for (const GpuReading& r : after) {
    if (!r.throttle_known) continue;
    known = true;
    seen |= r.throttle;
    if (r.throttle & ~kThrottleNotCounted) ++throttled;
  }
  if (known) {
    j["throttle_reasons_seen"] = throttle_reason_names(seen);
    j["throttled_samples"] = throttled;
  } else {
    j["throttle_reasons_seen"] = nullptr;
    j["throttled_samples"] = nullptr;
  }

  // The counter runs over the whole loop: the samples, the L2 flush before each and the
  // harness's gaps between them, so energy per sample is an upper bound of the kernel's own.
  const double energy = end.energy_j - start.energy_j;
  if (!after.empty() && std::isfinite(energy) && energy > 0) {
    const double n = static_cast<double>(after.size());
    j["energy_j"] = energy;
    j["energy_j_per_sample"] = energy / n;
    j["tflop_per_j"] = flops_per_sample * n / energy / 1e12;
  } else {
    j["energy_j"] = nullptr;
    j["energy_j_per_sample"] = nullptr;
    j["tflop_per_j"] = nullptr;
  }
  return j;
}

nlohmann::json gpu_sustained_json(const GpuReading& before, const GpuReading& after,
                                  long long calls, double ms, double flops_per_call) {
  nlohmann::json j;
  const double n = static_cast<double>(calls);
  const double seconds = ms / 1000.0;
  j["calls"] = calls;
  j["seconds"] = seconds;
  j["ms_per_call"] = ms / n;
  j["tflops"] = seconds > 0 ? flops_per_call * n / seconds / 1e12 : 0.0;
  const double energy = after.energy_j - before.energy_j;
  if (std::isfinite(energy) && energy > 0 && seconds > 0) {
    j["energy_j_per_call"] = energy / n;
    j["power_w_mean"] = energy / seconds;
    j["tflop_per_j"] = flops_per_call * n / energy / 1e12;
  } else {
    j["energy_j_per_call"] = nullptr;
    j["power_w_mean"] = nullptr;
    j["tflop_per_j"] = nullptr;
  }
  j["sm_clock_mhz_end"] = value_or_null(after.sm_mhz);
  j["temperature_c_end"] = value_or_null(after.temp_c);
  if (after.throttle_known) {
    j["throttle_reasons_end"] = throttle_reason_names(after.throttle & ~kThrottleNotCounted);
  } else {
    j["throttle_reasons_end"] = nullptr;
  }
  return j;
}

nlohmann::json gpu_state_absent_json(const std::string& why) {
  return {{"absent", why}};
}

}  // namespace fa2b
