// SPDX-License-Identifier: Apache-2.0
// Variable-length batches on the CPU target: the int32 arrays AttnParams points a varlen kernel
// to (cu_seqlens for a packed batch, the lengths for a padded one), allocated in host memory
// through the tracker as a GPU backend allocates them on its device, and the padding rows a
// padded batch's backends write.
#pragma once

#include <cstdint>
#include <functional>
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

// A dense backward over a view: `p` (B = 1 for a sequence), its LSE (head h's row i at
// lse[h * lse_head_stride + i] for B = 1; in general lse[(b * H + h) * lse_head_stride + i]) and
// its rows' D_i buffer ([B, H, T_q] of the view, contiguous).
using DenseBackward = std::function<void(int sequence, const AttnBwdParams& p, const float* lse,
                                         std::int64_t lse_head_stride, float* di)>;

// The backward of a batch, dense or variable-length: a dense batch calls `dense` once (sequence
// -1); a variable-length one calls it per non-empty sequence on its view (common/varlen.h's
// sequence_bwd_view; `di` sliced so that each sequence's rows get their own), and writes a
// padded batch's padding rows of dQ, dK and dV as zeros (their outputs were zeros: nothing flows
// back through them). `batch` carries the arrays (VarlenArrays::apply).
void backward_by_sequence(const AttnBwdParams& batch, float* di, const DenseBackward& dense);

}  // namespace fa2b::cpu
