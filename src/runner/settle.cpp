// SPDX-License-Identifier: Apache-2.0
#include "runner/settle.h"

#include "core/gpu_state.h"
#include "core/throttled_samples.h"

namespace fa2b {

SettleOutcome settle_gpu(GpuStateProbe& probe, double limit_s,
                         const std::function<void(double)>& sleep_s) {
  SettleOutcome s;
  GpuReading r = probe.read();
  s.known = r.throttle_known;
  if (!s.known) {
    s.cleared = true;  // nothing to wait for that the device would tell
    return s;
  }
  s.reasons_at_start = throttle_reason_names(r.throttle & ~kThrottleNotCounted);
  while (is_throttled(r) && s.waited_s + kSettlePollSeconds <= limit_s + 1e-9) {
    sleep_s(kSettlePollSeconds);
    s.waited_s += kSettlePollSeconds;
    r = probe.read();
  }
  s.cleared = !is_throttled(r);
  return s;
}

nlohmann::json settle_json(const SettleOutcome& s) {
  if (!s.known) return {{"absent", "the device reports no throttle reasons"}};
  return {
      {"waited_s", s.waited_s}, {"cleared", s.cleared}, {"reasons_at_start", s.reasons_at_start}};
}

}  // namespace fa2b
