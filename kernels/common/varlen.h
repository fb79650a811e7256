// SPDX-License-Identifier: Apache-2.0
// One sequence of a variable-length batch (AttnParams::cu_seqlens_q / seqused) as a dense
// B = 1 attention of its own length, so that code written for a dense batch (the mask rule of
// common/attn_mask.h included) runs it unchanged: the pointers start at the sequence's first
// row, T_q and T_k are its lengths. Host and device alike.
#pragma once

#include <cstdint>

#include "common/attn_params.h"
#include "core/host_device.h"

namespace fa2b {

FA2B_HD bool attn_varlen(const AttnParams& p) {
  return p.cu_seqlens_q != nullptr || p.seqused != nullptr;
}

// Query (= key, for self-attention lengths) tokens of sequence b; T_q for a dense batch.
FA2B_HD int sequence_length_q(const AttnParams& p, int b) {
  if (p.cu_seqlens_q != nullptr) return p.cu_seqlens_q[b + 1] - p.cu_seqlens_q[b];
  return p.seqused != nullptr ? p.seqused[b] : p.T_q;
}
FA2B_HD int sequence_length_k(const AttnParams& p, int b) {
  if (p.cu_seqlens_k != nullptr) return p.cu_seqlens_k[b + 1] - p.cu_seqlens_k[b];
  return p.seqused != nullptr ? p.seqused[b] : p.T_k;
}

// Query rows of batch entry b that a kernel loads and writes: a packed sequence's own rows
// (the next sequence's follow them), else all T_q (a padded batch's padding rows are computed
// against the sequence's keys, so the whole output is written and finite).
FA2B_HD int stored_rows_q(const AttnParams& p, int b) {
  return p.cu_seqlens_q != nullptr ? p.cu_seqlens_q[b + 1] - p.cu_seqlens_q[b] : p.T_q;
}

// Sequence b's tensors and lengths, B = 1 (its rows are batch 0 of the view), varlen arrays
// cleared. Its LSE, whose layout differs between the packings, is lse[h * lse_head_stride + i]
// (view.p.lse is null: a dense code path addresses LSE as [B, H, T_q], which the view's T_q
// would break for a padded batch).
struct SequenceView {
  AttnParams p;
  float* lse;
  std::int64_t lse_head_stride;
};

FA2B_HD const void* advance(const void* base, std::int64_t elems, KernelDType dt) {
  return static_cast<const char*>(base) + elems * (dt == KernelDType::fp32 ? 4 : 2);
}

FA2B_HD SequenceView sequence_view(const AttnParams& p, int b) {
  SequenceView s;
  s.p = p;
  std::int64_t q_row = 0, k_row = 0;  // the sequence's first rows, in elements
  if (p.cu_seqlens_q != nullptr) {
    q_row = p.cu_seqlens_q[b];
    k_row = p.cu_seqlens_k[b];
    const std::int64_t total_q = p.cu_seqlens_q[p.B];
    s.lse = p.lse != nullptr ? p.lse + q_row : nullptr;
    s.lse_head_stride = total_q;
    s.p.q = advance(p.q, q_row * p.q_row_stride, p.dtype);
    s.p.k = advance(p.k, k_row * p.k_row_stride, p.dtype);
    s.p.v = advance(p.v, k_row * p.v_row_stride, p.dtype);
    s.p.o = const_cast<void*>(advance(p.o, q_row * p.o_row_stride, p.dtype));
  } else {
    s.lse = p.lse != nullptr ? p.lse + static_cast<std::int64_t>(b) * p.H * p.T_q : nullptr;
    s.lse_head_stride = p.T_q;
    s.p.q = advance(p.q, b * p.q_batch_stride, p.dtype);
    s.p.k = advance(p.k, b * p.k_batch_stride, p.dtype);
    s.p.v = advance(p.v, b * p.v_batch_stride, p.dtype);
    s.p.o = const_cast<void*>(advance(p.o, b * p.o_batch_stride, p.dtype));
  }
  s.p.B = 1;
  s.p.T_q = sequence_length_q(p, b);
  s.p.T_k = sequence_length_k(p, b);
  s.p.lse = nullptr;
  s.p.cu_seqlens_q = s.p.cu_seqlens_k = s.p.seqused = nullptr;
  return s;
}

}  // namespace fa2b
