// SPDX-License-Identifier: Apache-2.0
// measure.settle_s: before a case's warm-up, wait while the GPU still reports a throttle reason
// (core/throttled_samples.h: a power cap, a thermal slowdown) that the case before left behind,
// so that every case starts from the same state whatever ran before it. Without it, a short
// case that follows a long one at the power cap takes its samples while the cap holds: on the
// H200, B64 H32 T_q 4 T_k 4K decode ran 13% slower right after a 128K-key case (every sample
// flagged `sw_power_cap`), and cuDNN's first 8 samples on the same shape 14% slower than its
// next 42 (results/NOTES.md, session 15).
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runtime/gpu_state_probe.h"

namespace fa2b {

// Seconds between two readings while settling.
inline constexpr double kSettlePollSeconds = 0.02;
// measure.drop_throttled's cool-down before re-taking throttled samples: at most this long
// (or measure.settle_s, when longer), so that a card held at its cap cannot stall a sweep.
inline constexpr double kCooldownLimitSeconds = 10.0;

struct SettleOutcome {
  double waited_s = 0.0;  // seconds slept before the GPU cleared or the limit came
  bool cleared = false;   // the last reading showed no throttle reason (or nothing was known)
  bool known = false;     // the device reports throttle reasons at all
  std::vector<std::string> reasons_at_start;  // counted reasons of the first reading
};

// Reads the probe, and while it reports a counted throttle reason sleeps kSettlePollSeconds
// (through `sleep_s`, so that tests need not wait) and reads again, for at most `limit_s`.
SettleOutcome settle_gpu(GpuStateProbe& probe, double limit_s,
                         const std::function<void(double)>& sleep_s);

// gpu_state.settle of the results (docs/results_schema.md).
nlohmann::json settle_json(const SettleOutcome& s);

}  // namespace fa2b
