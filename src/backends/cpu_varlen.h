// SPDX-License-Identifier: Apache-2.0
// Variable-length batches on the CPU target: the int32 arrays AttnParams points a varlen kernel
// to (cu_seqlens for a packed batch, the lengths for a padded one), allocated in host memory
// through the tracker as a GPU backend allocates them on its device, and the padding rows a
// padded batch's backends write.
#pragma once

#include <limits>

#include "common/attn_params.h"
#include "core/case.h"
#include "runtime/memory_tracker.h"

namespace fa2b::cpu {

class VarlenArrays {
 public:
  // Allocates and fills the case's arrays; nothing for a dense case.
  void prepare(const Case& c, MemoryTracker& tracker);
  // `p` with the arrays set (unchanged for a dense case).
  AttnParams apply(const AttnParams& p) const;
  void reset() { buffer_.reset(); }

 private:
  TrackedBuffer buffer_;
  bool packed_ = false;
  int B_ = 0;
};

// A padded batch's rows past sequence b's length in every head: O zeros, LSE -inf (when p.lse
// is set), so the whole output is finite. `p` is the batch's (with seqused), not a view.
void write_padding_rows(const AttnParams& p, int b);

}  // namespace fa2b::cpu
