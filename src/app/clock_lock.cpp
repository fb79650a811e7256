// SPDX-License-Identifier: Apache-2.0
#include "app/clock_lock.h"

#include <fmt/format.h>

#include "runtime/gpu_state_probe.h"

namespace fa2b {

SweepClockLock::SweepClockLock(int mhz, const std::string& target,
                               const nlohmann::json& device_block, bool quiet)
    : mhz_(mhz), quiet_(quiet) {
  if (mhz_ <= 0) return;
  const std::string pci = device_block.is_object() ? device_block.value("pci_bus", "") : "";
  pci_bus_ = pci.empty() ? "" : pci + ".0";
  std::string why;
  if (target != "cuda") {
    reason_ = "the cpu target has no GPU clock to lock";
  } else if (pci_bus_.empty()) {
    reason_ = "the device block names no PCI bus";
  } else if (lock_sm_clock(pci_bus_, mhz_, &why)) {
    locked_ = true;
  } else {
    reason_ = why;
  }
  if (!quiet_) {
    if (locked_) {
      fmt::print(stderr, "fa2bench: SM clock of {} locked at {} MHz for this sweep\n",
                 device_block.value("name", "the GPU"), mhz_);
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
