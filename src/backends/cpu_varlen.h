// SPDX-License-Identifier: Apache-2.0
// Variable-length batches on the CPU target: the int32 arrays AttnParams points a varlen kernel
// to (cu_seqlens for a packed batch, the lengths for a padded one), allocated in host memory
// through the tracker as a GPU backend allocates them on its device, and the padding rows a
// padded batch's backends write.
#pragma once

#include <limits>

#include "backends/varlen_arrays.h"
#include "common/attn_params.h"
#include "core/case.h"
#include "runtime/memory_tracker.h"

namespace fa2b::cpu {

// The arrays in host memory (backends/varlen_arrays.h), as a GPU backend's are on its device.
class VarlenArrays : public fa2b::VarlenArrays {
 public:
  // Allocates and fills the case's arrays; nothing for a dense case.
  void prepare(const Case& c, MemoryTracker& tracker);
};

// A padded batch's rows past sequence b's length in every head: O zeros, LSE -inf (when p.lse
// is set), so the whole output is finite. `p` is the batch's (with seqused), not a view.
void write_padding_rows(const AttnParams& p, int b);

}  // namespace fa2b::cpu
