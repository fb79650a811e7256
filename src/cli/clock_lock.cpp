// SPDX-License-Identifier: Apache-2.0
#include "cli/clock_lock.h"

#include <fmt/format.h>

#include <vector>

#include "runtime/device_info.h"
#include "runtime/gpu_state_probe.h"

namespace fa2b {

SweepClockLock::SweepClockLock(int mhz, const std::string& target, int device, bool quiet)
    : mhz_(mhz), quiet_(quiet) {
  if (mhz_ <= 0) return;
  if (target != "cuda") {
    reason_ = "the cpu target has no GPU clock to lock";
  } else {
    std::string why;
    for (const GpuInfo& g : list_gpus(&why)) {
      if (g.index == device) pci_bus_ = g.pci_bus + ".0";
    }
    if (pci_bus_.empty()) {
      reason_ = why.empty() ? fmt::format("no CUDA device {}", device) : why;
    } else if (lock_sm_clock(pci_bus_, mhz_, &why)) {
      locked_ = true;
    } else {
      reason_ = why;
    }
  }
  if (!quiet_) {
    if (locked_) {
      fmt::print(stderr, "fa2bench: SM clock of device {} locked at {} MHz for this sweep\n",
                 device, mhz_);
    } else {
      fmt::print(stderr,
                 "fa2bench: --lock-clocks {}: clocks not locked ({}); the cases run at the "
                 "GPU's own clocks\n",
                 mhz_, reason_);
    }
  }
}

SweepClockLock::~SweepClockLock() {
  if (!locked_) return;
  std::string why;
  if (!reset_sm_clock(pci_bus_, &why)) {
    fmt::print(stderr,
               "fa2bench: could not give the SM clock back to the driver ({}); "
               "`nvidia-smi -rgc` does\n",
               why);
  }
}

nlohmann::json SweepClockLock::record() const {
  nlohmann::json j = {{"locked", locked_}};
  if (locked_) {
    j["sm_mhz"] = mhz_;
  } else if (mhz_ > 0) {
    j["requested_mhz"] = mhz_;
    j["reason"] = reason_;
  }
  return j;
}

}  // namespace fa2b
