// SPDX-License-Identifier: Apache-2.0
// How the device's copy bandwidth is measured (runner/cuda/copy_bw_probe.h runs it; results
// describe it): the one place its parameters are written.
#pragma once

#include <cstddef>
#include <string>

namespace fa2b {

// Bytes each of the probe's two buffers holds: far beyond any L2 (60 MiB on the H200), small
// enough to leave room on any card the default build targets.
inline constexpr std::size_t kCopyProbeBytes = std::size_t{512} << 20;
// Timed copies after one warm-up; the best one counts.
inline constexpr int kCopyProbeTimedCopies = 5;

// "device-to-device cudaMemcpy of 512 MiB, best of 5 after a warm-up, bytes read plus written
// per second (1e9)".
inline std::string copy_bw_method() {
  return "device-to-device cudaMemcpy of " + std::to_string(kCopyProbeBytes >> 20) +
         " MiB, best of " + std::to_string(kCopyProbeTimedCopies) +
         " after a warm-up, bytes read plus written per second (1e9)";
}

}  // namespace fa2b
