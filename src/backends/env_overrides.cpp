// SPDX-License-Identifier: Apache-2.0
#include "backends/env_overrides.h"

#include <cstdlib>

#include "common/env_knobs.h"

namespace fa2b {
namespace {

// The harness's own overrides (read in src/runtime/device_info.cpp and
// src/runner/case_verify.cpp): they change the CPU target's timings and the verification's wall
// time, not a kernel.
constexpr const char* kHarnessOverrides[] = {"FA2BENCH_CPU_THREADS", "FA2BENCH_HOST_REFERENCE"};

}  // namespace

nlohmann::json active_overrides() {
  nlohmann::json set = nlohmann::json::object();
  for (const knob::EnvKnob& k : knob::kKernelKnobs) {
    if (const char* v = knob::value(k.name)) set[k.name] = v;
  }
  for (const char* name : kHarnessOverrides) {
    if (const char* v = std::getenv(name)) set[name] = v;
  }
  return set;
}

}  // namespace fa2b
