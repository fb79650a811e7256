// SPDX-License-Identifier: Apache-2.0
// Which timed samples ran while the GPU was throttled (core/gpu_state.h: a reason other than
// idle or the application clock setting in the reading taken right after the sample), and which
// samples the statistics use under measure.drop_throttled.
#pragma once

#include <string>
#include <vector>

#include "core/gpu_state.h"

namespace fa2b {

// True when the reading reports a throttle reason that marks a sample.
bool is_throttled(const GpuReading& after_sample);

struct SampleSelection {
  std::vector<double> used;       // the samples the statistics use, in the order taken
  std::vector<int> throttled_at;  // indices into `used` of throttled samples left in
  int dropped = 0;                // throttled samples left out of `used`
  // Whether every sample had a throttle reading; false where there was no probe or the device
  // does not report reasons (then nothing is flagged or dropped).
  bool known = false;
};

// `after[i]` is the reading after `samples[i]` (empty without a probe). With `drop`, throttled
// samples are left out, unless every sample was throttled: a steady power cap is then the
// state the case runs in, and dropping all would leave nothing to measure, so all stay in
// (flagged, dropped 0).
SampleSelection select_samples(const std::vector<double>& samples,
                               const std::vector<GpuReading>& after, bool drop);

}  // namespace fa2b
