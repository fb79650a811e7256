// SPDX-License-Identifier: Apache-2.0
#include "core/throttled_samples.h"

namespace fa2b {

bool is_throttled(const GpuReading& r) {
  return r.throttle_known && (r.throttle & ~kThrottleNotCounted) != 0;
}

SampleSelection select_samples(const std::vector<double>& samples,
                               const std::vector<GpuReading>& after, bool drop) {
  SampleSelection s;
  s.known = !samples.empty() && after.size() == samples.size();
  for (const GpuReading& r : after) s.known = s.known && r.throttle_known;
  std::size_t throttled = 0;
  if (s.known) {
    for (const GpuReading& r : after) throttled += is_throttled(r) ? 1 : 0;
  }
  const bool dropping = drop && s.known && throttled < samples.size();
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const bool flagged = s.known && is_throttled(after[i]);
    if (flagged && dropping) {
      ++s.dropped;
      continue;
    }
    if (flagged) s.throttled_at.push_back(static_cast<int>(s.used.size()));
    s.used.push_back(samples[i]);
  }
  return s;
}

}  // namespace fa2b
