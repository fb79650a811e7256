// SPDX-License-Identifier: Apache-2.0
// Vendor peaks of common GPUs (dense fp16/bf16 tensor-core TFLOP/s and memory bandwidth), so
// results can say how close a case came to its device's limits (% of peak) and `compare
// --normalize peak` can compare different GPUs.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/case.h"

namespace fa2b {

struct GpuPeaks {
  const char* label;   // the row's name, e.g. "H100 SXM"
  double fp16_tflops;  // dense (no sparsity), fp32 accumulation where the two differ
  double bf16_tflops;
  double bw_gbs;  // memory bandwidth, 1e9 bytes per second
};

// The row for a device name as CUDA reports it ("NVIDIA H100 80GB HBM3"); nullopt when the
// name matches no row.
std::optional<GpuPeaks> find_gpu_peaks(const std::string& device_name);

// A device block with `peak_tflops` ({"fp16": ..., "bf16": ...}) and `peak_bw_gbs` added
// from the table, or `peaks_absent` (one line why) where the device has no row.
nlohmann::json with_device_peaks(nlohmann::json device);

// The dense peak of `dtype` from a device block: a hand-added number `peak_tflops` (any
// dtype), or its per-dtype entry; NaN when unknown (fp32 has no entry: no tensor-core peak).
double block_peak_tflops(const nlohmann::json& device, DType dtype);
// `peak_bw_gbs` of a device block; NaN when unknown.
double block_peak_bw_gbs(const nlohmann::json& device);

}  // namespace fa2b
