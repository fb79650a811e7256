// SPDX-License-Identifier: Apache-2.0
// Runs case after case on long-lived platforms and backends: the in-process executor and the
// isolated worker process (`fa2bench run-worker`) both use one, so plans, handles and the CUDA
// context are built once per process, not once per case.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "backends/backend.h"
#include "core/result.h"
#include "runner/case_runner.h"
#include "runner/platform.h"

namespace fa2b {

class CaseSession {
 public:
  // On `target` ("cuda" or "cpu"): on-device backends run on the CUDA `device`, made on first
  // use; CPU backends on a host platform. Every platform made here gets `memory_budget`.
  CaseSession(std::string target, int device, std::int64_t memory_budget);
  // Runs every case on the borrowed `platform` (which must outlive the session), CPU backends
  // listed on the cuda target on a host platform made here.
  explicit CaseSession(Platform& platform);

  // Never throws for problems of the case: they become its status.
  CaseResult run(const Case& c, const DumpRequest* dump);
  // True when the device platform can no longer run cases (a sticky CUDA error): only a new
  // process (a new CUDA context) can.
  bool broken(std::string* why) const;

 private:
  Platform* platform_for(const Backend& backend, std::string* why);

  std::string target_;
  int device_ = 0;
  std::int64_t budget_ = 0;
  Platform* device_platform_ = nullptr;  // borrowed or owned_device_
  std::unique_ptr<Platform> owned_device_;
  std::string device_error_;  // why the device platform could not be made
  std::unique_ptr<Platform> host_;
  // Backends live for the whole session so plans and handles are built once.
  std::map<std::string, std::unique_ptr<Backend>> backends_;
};

}  // namespace fa2b
