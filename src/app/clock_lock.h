// SPDX-License-Identifier: Apache-2.0
// `sweep --lock-clocks MHZ`: the GPU's SM clock locked through NVML for the sweep's cases and
// given back to the driver when the sweep ends (also after a first SIGINT/SIGTERM, which ends
// the sweep between cases; a second one exits at once and leaves the lock in place, which
// `nvidia-smi -rgc` undoes). Where locking is not permitted the sweep runs at the GPU's own
// clocks and says why, on stderr and in results.json's "clocks".
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace fa2b {

class SweepClockLock {
 public:
  // mhz 0: nothing requested (the record then says only that clocks were not locked).
  // device_block: the sweep's results device block (its "pci_bus" names the GPU to lock).
  SweepClockLock(int mhz, const std::string& target, const nlohmann::json& device_block,
                 bool quiet);
  ~SweepClockLock();
  SweepClockLock(const SweepClockLock&) = delete;
  SweepClockLock& operator=(const SweepClockLock&) = delete;

  // results.json "clocks": {"locked": false} when not requested; {"locked": true,
  // "sm_mhz": N} when locked; {"locked": false, "requested_mhz": N, "reason": "..."} otherwise.
  nlohmann::json record() const;

 private:
  int mhz_ = 0;
  bool locked_ = false;
  bool quiet_ = false;
  std::string reason_;
  std::string pci_bus_;  // NVML's form, "0000:19:00.0"
};

}  // namespace fa2b
