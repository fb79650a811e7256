// SPDX-License-Identifier: Apache-2.0
// Peak dense TFLOP/s of a device, for `compare --normalize peak` across GPUs.
#include <cmath>
#include <string>

#include "compare/compare.h"
#include "core/gpu_peaks.h"

namespace fa2b {

std::string device_name(const nlohmann::json& device) {
  if (device.is_object()) {
    const auto it = device.find("name");
    if (it != device.end() && it->is_string() && !it->get<std::string>().empty())
      return it->get<std::string>();
  }
  return "unknown device";
}

std::optional<double> device_peak_tflops(const nlohmann::json& device, DType dtype) {
  // The file's own peaks first (written by sweep since issue 18, or added by hand)...
  const double own = block_peak_tflops(device, dtype);
  if (std::isfinite(own)) return own;
  if (device.is_object() && device.contains("peak_tflops")) return std::nullopt;
  // ...else the table by name, for files written before results carried peaks.
  if (!device.is_object() || device.value("kind", "") == "cpu") return std::nullopt;
  const std::optional<GpuPeaks> row = find_gpu_peaks(device_name(device));
  if (!row) return std::nullopt;
  switch (dtype) {
    case DType::fp16:
      return row->fp16_tflops;
    case DType::bf16:
      return row->bf16_tflops;
    case DType::fp32:
      break;
  }
  return std::nullopt;
}

double pct_of_peak_flops(const CaseResult& r, const nlohmann::json& device) {
  if (r.status != Status::ok) return kNaN;
  if (std::isfinite(r.pct_of_peak_flops)) return r.pct_of_peak_flops;
  const std::optional<double> peak = device_peak_tflops(device, r.c.dtype);
  return peak ? 100.0 * r.tflops / *peak : kNaN;
}

}  // namespace fa2b
