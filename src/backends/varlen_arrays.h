// SPDX-License-Identifier: Apache-2.0
// A variable-length batch's int32 arrays, as a varlen kernel reads them (AttnParams::
// cu_seqlens_q / cu_seqlens_k for a packed batch, seqused for a padded one): one buffer from
// the case's tracker, so the tracked peak counts it (core/shape_algebra.h's
// varlen_arrays_bytes predicts it). The CPU target keeps it in host memory
// (cpu::VarlenArrays), the GPU backends on the device (DeviceVarlenArrays); both fill it here.
#pragma once

#include <cstddef>

#include "common/attn_params.h"
#include "core/case.h"
#include "runtime/memory_tracker.h"

namespace fa2b {

class VarlenArrays {
 public:
  // `p` with the arrays set (unchanged for a dense case).
  AttnParams apply(const AttnParams& p) const;
  // The same for a backward's forward params.
  AttnBwdParams apply(const AttnBwdParams& p) const {
    AttnBwdParams out = p;
    out.fwd = apply(p.fwd);
    return out;
  }
  void reset() { buffer_.reset(); }

 protected:
  // Writes `bytes` of host data into the tracked buffer (a memcpy, or a host-to-device copy).
  using CopyIn = void (*)(void* dst, const void* src, std::size_t bytes);
  // Allocates and fills the case's arrays; nothing for a dense case.
  void prepare_with(const Case& c, MemoryTracker& tracker, CopyIn copy_in);

 private:
  TrackedBuffer buffer_;
  bool packed_ = false;
  int B_ = 0;
};

}  // namespace fa2b
