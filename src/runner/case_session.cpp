// SPDX-License-Identifier: Apache-2.0
#include "runner/case_session.h"

#include <fmt/format.h>

#include "runner/executor.h"

namespace fa2b {

CaseSession::CaseSession(std::string target, int device, std::int64_t memory_budget)
    : target_(std::move(target)), device_(device), budget_(memory_budget) {}

CaseSession::CaseSession(Platform& platform)
    : target_(platform.target()), device_platform_(&platform) {}

Platform* CaseSession::platform_for(const Backend& backend, std::string* why) {
  if (target_ == "cuda" && backend.on_device()) {
    if (!device_platform_ && device_error_.empty()) {
      owned_device_ = make_cuda_platform(device_, budget_, &device_error_);
      device_platform_ = owned_device_.get();
      if (!device_platform_ && device_error_.empty()) device_error_ = "no CUDA platform";
    }
    if (!device_platform_) *why = device_error_;
    return device_platform_;
  }
  if (target_ == "cpu" && device_platform_) return device_platform_;  // a borrowed host one
  if (!host_) {
    host_ = make_host_platform();
    host_->tracker().set_budget(budget_);
  }
  return host_.get();
}

CaseResult CaseSession::run(const Case& c, const DumpRequest* dump) {
  try {
    auto& backend = backends_[c.backend];
    if (!backend) backend = make_backend(c.backend);
    if (!backend) {
      return result_without_run(
          c, target_, Status::unsupported,
          fmt::format("backend {} is not built into this fa2bench", c.backend));
    }
    std::string why;
    Platform* where = platform_for(*backend, &why);
    if (!where) return result_without_run(c, target_, Status::error, why);
    CaseResult r = run_case(c, *backend, *where, dump);
    r.target = target_;
    return r;
  } catch (const std::exception& e) {
    return result_without_run(c, target_, Status::error, e.what());
  }
}

bool CaseSession::broken(std::string* why) const {
  return device_platform_ && device_platform_->broken(why);
}

}  // namespace fa2b
