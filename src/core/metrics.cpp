// SPDX-License-Identifier: Apache-2.0
#include "core/metrics.h"

#include <cmath>

namespace fa2b {

namespace {

// The per-tensor error metrics; a gradient's carry its suffix ("max_abs_err_dq").
const char* const kErrorMetrics[] = {"max_abs_err", "mean_abs_err", "rel_l2_err"};

double error_value(const ErrorStats& e, std::string_view metric) {
  if (metric == "max_abs_err") return e.max_abs_err;
  if (metric == "mean_abs_err") return e.mean_abs_err;
  return e.rel_l2_err;
}

}  // namespace

const std::vector<std::string>& measured_metric_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n = {
        "time_median_ms",  "time_mean_ms",    "time_min_ms", "time_max_ms", "time_p10_ms",
        "time_p90_ms",     "time_first_ms",   "tflops",      "gbps",        "peak_bytes",
        "workspace_bytes", "predicted_bytes", "saved_bytes", "max_abs_err", "mean_abs_err",
        "rel_l2_err",      "nonfinite"};
    for (Grad g : kGrads)
      for (const char* m : kErrorMetrics)
        n.push_back(std::string(m) + "_" + std::string(to_string(g)));
    n.push_back("nonfinite_grad");
    return n;
  }();
  return names;
}

std::optional<double> metric_value(const CaseResult& r, std::string_view name) {
  auto finite = [](double v) -> std::optional<double> {
    if (std::isnan(v)) return std::nullopt;
    return v;
  };
  // A results file without a memory block or a nonfinite count has no such numbers: reading
  // them as 0 would pass `peak_bytes < 1000` on nothing.
  const bool memory_metric =
      name == "peak_bytes" || name == "workspace_bytes" || name == "predicted_bytes";
  if (memory_metric && !r.memory.recorded) return std::nullopt;
  if (name == "nonfinite" && !r.accuracy.nonfinite_recorded) return std::nullopt;
  // Predictions exist for every case, run or not.
  if (name == "predicted_bytes") return static_cast<double>(r.memory.predicted_bytes);
  if (name == "saved_bytes") return static_cast<double>(r.memory.saved_bytes);
  if (r.status != Status::ok) return std::nullopt;
  const TimeStats& t = r.time;
  if (name == "time_median_ms") return finite(t.median);
  if (name == "time_mean_ms") return finite(t.mean);
  if (name == "time_min_ms") return finite(t.min);
  if (name == "time_max_ms") return finite(t.max);
  if (name == "time_p10_ms") return finite(t.p10);
  if (name == "time_p90_ms") return finite(t.p90);
  if (name == "time_first_ms") return finite(t.first_ms);
  if (name == "tflops") return finite(r.tflops);
  if (name == "gbps") return finite(r.gbps);
  if (name == "peak_bytes") return static_cast<double>(r.memory.peak_bytes);
  if (name == "workspace_bytes") return static_cast<double>(r.memory.workspace_bytes);
  if (!r.accuracy.checked) return std::nullopt;
  if (name == "max_abs_err") return r.accuracy.max_abs_err;  // may be inf: a real failure
  if (name == "mean_abs_err") return finite(r.accuracy.mean_abs_err);
  if (name == "rel_l2_err") return r.accuracy.rel_l2_err;
  if (name == "nonfinite") return static_cast<double>(r.accuracy.nonfinite);
  if (!r.accuracy.grads_checked) return std::nullopt;
  if (name == "nonfinite_grad") return static_cast<double>(r.accuracy.grad_nonfinite);
  for (Grad g : kGrads) {
    const std::string suffix = "_" + std::string(to_string(g));
    if (name.size() <= suffix.size() || name.substr(name.size() - suffix.size()) != suffix)
      continue;
    const std::string_view metric = name.substr(0, name.size() - suffix.size());
    for (const char* m : kErrorMetrics) {
      if (metric != m) continue;
      const double v = error_value(r.accuracy.of(g), metric);
      return metric == "mean_abs_err" ? finite(v) : v;  // max and rel may be inf: a failure
    }
  }
  return std::nullopt;
}

}  // namespace fa2b
