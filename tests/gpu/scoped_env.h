// SPDX-License-Identifier: Apache-2.0
// An environment variable set (or, with nullptr, unset) for a scope and restored after: the GPU
// tests force fa2's decode plan through FA2BENCH_FA2_SPLITS and friends.
#pragma once

#include <cstdlib>
#include <string>

namespace fa2b {

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = std::getenv(name);
    had_ = old != nullptr;
    if (had_) old_ = old;
    if (value != nullptr) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (had_) {
      setenv(name_, old_.c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  bool had_ = false;
  std::string old_;
};

}  // namespace fa2b
