// SPDX-License-Identifier: Apache-2.0
// Reads the GPU's clocks, power, temperature, throttle reasons and energy counter, for the
// `gpu_state` of a case (core/gpu_state.h). The cuda platform holds one backed by NVML.
#pragma once

#include <memory>
#include <string>

#include "core/gpu_state.h"
#include "core/gpu_status.h"

namespace fa2b {

class GpuStateProbe {
 public:
  virtual ~GpuStateProbe() = default;
  // Fields the device does not answer stay at their "unknown" values.
  virtual GpuReading read() = 0;
  // The reading the runner takes after every timed sample: only what per-sample statistics use
  // (SM clock, power, throttle reasons); the rest (memory clock, temperature, energy) stays
  // unknown, and the runner reads it in full once after the last sample. Each NVML query costs
  // the sweep wall time per sample (issue 44). The default reads everything.
  virtual GpuReading read_sample() { return read(); }
};

// NVML (libnvidia-ml.so.1, loaded at run time) for the device at `pci_bus` ("0000:19:00"
// as cudaDeviceProp gives it). Null with `why` where NVML or the device cannot be had.
std::unique_ptr<GpuStateProbe> make_nvml_probe(const std::string& pci_bus, std::string* why);

// The device's clocks, their maxima, power against its limit and the throttle reasons now,
// through NVML, for `fa2bench devices`. False with `why` (one line) where NVML or the device
// cannot be had (always in a build without CUDA).
bool read_gpu_status(const std::string& pci_bus, GpuStatus& out, std::string* why);

// Locks the SM clock of the device at `pci_bus` to `mhz` (minimum = maximum) through NVML, and
// gives it back to the driver. False with `why` (one line) where that is not permitted (it
// needs root or a grant), not supported, or NVML cannot be had.
bool lock_sm_clock(const std::string& pci_bus, int mhz, std::string* why);
bool reset_sm_clock(const std::string& pci_bus, std::string* why);

}  // namespace fa2b
