// SPDX-License-Identifier: Apache-2.0
// The device's copy bandwidth, measured: what a memory-bound kernel can hope to reach on this
// card, beside the vendor's data-sheet peak (results' device.copy_bw_gbs, a case's
// pct_of_copy_bw).
#pragma once

#include <cstddef>
#include <string>

#include "core/copy_bw.h"

namespace fa2b {

// Best of kCopyProbeTimedCopies device-to-device cudaMemcpyAsync calls of `bytes` on `stream`
// (a warm-up first), as 1e9 bytes read plus written per second. NaN with `why` set when the buffers
// cannot be allocated or a call fails; the buffers are freed before it returns either way.
double measure_copy_bw_gbs(std::size_t bytes, void* stream, std::string* why);

}  // namespace fa2b
