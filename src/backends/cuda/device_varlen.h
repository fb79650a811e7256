// SPDX-License-Identifier: Apache-2.0
// A variable-length batch's int32 arrays on the device (AttnParams::cu_seqlens_q/k for a packed
// batch, seqused for a padded one): one buffer from the case's tracker, filled in prepare(), so
// the tracked peak counts it (core/shape_algebra.h's varlen_arrays_bytes predicts it).
#pragma once

#include "common/attn_params.h"
#include "core/case.h"
#include "runtime/memory_tracker.h"

namespace fa2b {

class DeviceVarlenArrays {
 public:
  // Allocates and copies the case's arrays (synchronously, outside every timed region);
  // nothing for a dense case.
  void prepare(const Case& c, MemoryTracker& tracker);
  // `p` with the arrays set (unchanged for a dense case).
  AttnParams apply(const AttnParams& p) const;
  void reset() { buffer_.reset(); }

 private:
  TrackedBuffer buffer_;
  bool packed_ = false;
  int B_ = 0;
};

}  // namespace fa2b
