// SPDX-License-Identifier: Apache-2.0
#include "backends/cpu_varlen.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "backends/cpu_common.h"
#include "common/varlen.h"

namespace fa2b::cpu {

void VarlenArrays::prepare(const Case& c, MemoryTracker& tracker) {
  prepare_with(c, tracker,
               [](void* dst, const void* src, std::size_t bytes) { std::memcpy(dst, src, bytes); });
}

void write_padding_rows(const AttnParams& p, int b) {
  // O rows are V's head dim wide (attn_dv), not Q's.
  const std::vector<float> zeros(static_cast<std::size_t>(attn_dv(p)), 0.0f);
  for (int h = 0; h < p.H; ++h) {
    for (std::int64_t t = sequence_length_q(p, b); t < p.T_q; ++t) {
      store_row(p.o, o_offset(p, b, h, t), attn_dv(p), p.dtype, zeros.data());
      if (p.lse != nullptr) {
        p.lse[(static_cast<std::int64_t>(b) * p.H + h) * p.T_q + t] =
            -std::numeric_limits<float>::infinity();
      }
    }
  }
}

namespace {

// A padded batch's rows past sequence b's length in dQ (every query head) and dK, dV (every KV
// head): zeros.
void write_padding_grads(const AttnBwdParams& bp, int b) {
  const AttnParams& p = bp.fwd;
  const int Dv = attn_dv(p);
  const std::vector<float> zeros(static_cast<std::size_t>(std::max(p.D, Dv)), 0.0f);
  for (int h = 0; h < p.H; ++h) {
    for (std::int64_t t = sequence_length_q(p, b); t < p.T_q; ++t) {
      store_row(bp.d_q, q_offset(p, b, h, t), p.D, p.dtype, zeros.data());
    }
  }
  for (int hk = 0; hk < p.H_kv; ++hk) {
    for (std::int64_t t = sequence_length_k(p, b); t < p.T_k; ++t) {
      store_row(bp.d_k, k_offset(p, b, hk, t), p.D, p.dtype, zeros.data());
      store_row(bp.d_v, v_offset(p, b, hk, t), Dv, p.dtype, zeros.data());
    }
  }
}

}  // namespace

void backward_by_sequence(const AttnBwdParams& batch, float* di, const DenseBackward& dense) {
  const AttnParams& p = batch.fwd;
  if (!attn_varlen(p)) {
    dense(-1, batch, p.lse, p.T_q, di);
    return;
  }
  for (int b = 0; b < p.B; ++b) {
    if (p.seqused != nullptr) write_padding_grads(batch, b);
    const SequenceBwdView s = sequence_bwd_view(batch, b);
    if (s.p.fwd.T_q == 0) continue;
    // D_i rows: a packed sequence's after the earlier sequences' tokens, a padded one's at its
    // batch slot.
    const std::int64_t di_row0 = p.cu_seqlens_q != nullptr
                                     ? static_cast<std::int64_t>(p.H) * p.cu_seqlens_q[b]
                                     : static_cast<std::int64_t>(b) * p.H * p.T_q;
    dense(b, s.p, s.lse, s.lse_head_stride, di + di_row0);
  }
}

}  // namespace fa2b::cpu
