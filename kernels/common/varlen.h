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

// Element offsets of sequence b's first query row (Q, O, dO, dQ) and first key row (K, V, dK,
// dV) in their tensors, and where its LSE rows begin (head h's row i at
// lse_row0 + h * lse_head_stride + i).
struct SequenceOffsets {
  std::int64_t q, k, v, o;
  std::int64_t lse_row0, lse_head_stride;
};

FA2B_HD SequenceOffsets sequence_offsets(const AttnParams& p, int b) {
  SequenceOffsets off;
  if (p.cu_seqlens_q != nullptr) {
    const std::int64_t q_row = p.cu_seqlens_q[b], k_row = p.cu_seqlens_k[b];
    off.q = q_row * p.q_row_stride;
    off.k = k_row * p.k_row_stride;
    off.v = k_row * p.v_row_stride;
    off.o = q_row * p.o_row_stride;
    off.lse_row0 = q_row;
    off.lse_head_stride = p.cu_seqlens_q[p.B];
  } else {
    off.q = b * p.q_batch_stride;
    off.k = b * p.k_batch_stride;
    off.v = b * p.v_batch_stride;
    off.o = b * p.o_batch_stride;
    off.lse_row0 = static_cast<std::int64_t>(b) * p.H * p.T_q;
    off.lse_head_stride = p.T_q;
  }
  return off;
}

// Sequence b's view from its offsets (sequence_offsets(p, b)).
FA2B_HD SequenceView sequence_view_at(const AttnParams& p, int b, const SequenceOffsets& off) {
  SequenceView s;
  s.p = p;
  s.lse = p.lse != nullptr ? p.lse + off.lse_row0 : nullptr;
  s.lse_head_stride = off.lse_head_stride;
  s.p.q = advance(p.q, off.q, p.dtype);
  s.p.k = advance(p.k, off.k, p.dtype);
  s.p.v = advance(p.v, off.v, p.dtype);
  s.p.o = const_cast<void*>(advance(p.o, off.o, p.dtype));
  s.p.B = 1;
  s.p.T_q = sequence_length_q(p, b);
  s.p.T_k = sequence_length_k(p, b);
  s.p.lse = nullptr;
  s.p.cu_seqlens_q = s.p.cu_seqlens_k = s.p.seqused = nullptr;
  return s;
}

FA2B_HD SequenceView sequence_view(const AttnParams& p, int b) {
  return sequence_view_at(p, b, sequence_offsets(p, b));
}

// The backward's view of sequence b: sequence_view's forward tensors, and dO, dQ, dK, dV from
// the same rows (laid out like O, Q, K and V).
struct SequenceBwdView {
  AttnBwdParams p;
  float* lse;
  std::int64_t lse_head_stride;
};

FA2B_HD SequenceBwdView sequence_bwd_view(const AttnBwdParams& bp, int b) {
  const SequenceOffsets off = sequence_offsets(bp.fwd, b);
  const SequenceView s = sequence_view_at(bp.fwd, b, off);
  const KernelDType dt = bp.fwd.dtype;
  SequenceBwdView v;
  v.p.fwd = s.p;
  v.p.d_o = advance(bp.d_o, off.o, dt);
  v.p.d_q = const_cast<void*>(advance(bp.d_q, off.q, dt));
  v.p.d_k = const_cast<void*>(advance(bp.d_k, off.k, dt));
  v.p.d_v = const_cast<void*>(advance(bp.d_v, off.v, dt));
  v.lse = s.lse;
  v.lse_head_stride = s.lse_head_stride;
  return v;
}

}  // namespace fa2b
