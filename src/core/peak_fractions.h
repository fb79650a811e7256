// SPDX-License-Identifier: Apache-2.0
// A case's throughput as a fraction of its device's limits (results' `mfu` and `bw_frac`,
// issue 44): the one definition, against the peaks of the device block (core/gpu_peaks.h), so
// that the percentages beside them (pct_of_peak_flops, pct_of_peak_bw) are 100 times these.
#pragma once

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/case.h"
#include "core/gpu_peaks.h"
#include "core/result.h"

namespace fa2b {

// `achieved` / `peak`; NaN unless both are known and the fraction is finite and > 0, so an
// unknown peak (the CPU target, an unlisted GPU, fp32) or an untimed case never reads as a
// number, and what is written is what the reader accepts (results_loader.cpp: > 0).
inline double peak_fraction(double achieved, double peak) {
  const double f = achieved / peak;
  return std::isfinite(f) && f > 0 ? f : kNaN;
}

// Model FLOPs utilisation: TFLOP/s over the device's dense tensor peak for `dtype`.
inline double model_flops_utilisation(double tflops, const nlohmann::json& device, DType dtype) {
  return peak_fraction(tflops, block_peak_tflops(device, dtype));
}

// The bytes a case moves per second (gbps: its minimal traffic over the median time) over the
// device's data-sheet memory bandwidth (`peak_bw_gbs`). The data sheet, not the measured copy
// bandwidth (`copy_bw_gbs`, pct_of_copy_bw): a copy writes as much as it reads, so a decode
// step, which almost only reads, passes it; against the data sheet the fraction stays a
// fraction, and it does not move with one process's probe.
inline double bandwidth_fraction(double gbps, const nlohmann::json& device) {
  return peak_fraction(gbps, block_peak_bw_gbs(device));
}

}  // namespace fa2b
