// SPDX-License-Identifier: Apache-2.0
#include "backends/cpu_varlen.h"

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

}  // namespace fa2b::cpu
