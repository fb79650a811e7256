// SPDX-License-Identifier: Apache-2.0
#include "backends/cpu_varlen.h"

#include <vector>

#include "backends/cpu_common.h"
#include "common/varlen.h"

namespace fa2b::cpu {

void VarlenArrays::prepare(const Case& c, MemoryTracker& tracker) {
  reset();
  if (!c.varlen()) return;
  packed_ = c.packing == Packing::packed;
  B_ = static_cast<int>(c.B);
  // Packed: the query and the key offsets (B + 1 each, equal for self-attention lengths);
  // padded: the B lengths.
  const std::size_t count = packed_ ? 2 * (c.lengths.size() + 1) : c.lengths.size();
  TrackedBuffer buffer(tracker, count * sizeof(int), "varlen sequence offsets / lengths");
  int* out = buffer.as<int>();
  if (packed_) {
    std::int64_t offset = 0;
    for (std::size_t b = 0; b <= c.lengths.size(); ++b) {
      out[b] = out[c.lengths.size() + 1 + b] = static_cast<int>(offset);
      if (b < c.lengths.size()) offset += c.lengths[b];
    }
  } else {
    for (std::size_t b = 0; b < c.lengths.size(); ++b) out[b] = static_cast<int>(c.lengths[b]);
  }
  buffer_ = std::move(buffer);
}

AttnParams VarlenArrays::apply(const AttnParams& p) const {
  AttnParams out = p;
  if (buffer_.get() == nullptr) return out;
  if (packed_) {
    out.cu_seqlens_q = buffer_.as<int>();
    out.cu_seqlens_k = buffer_.as<int>() + B_ + 1;
  } else {
    out.seqused = buffer_.as<int>();
  }
  return out;
}

void write_padding_rows(const AttnParams& p, int b) {
  const std::vector<float> zeros(static_cast<std::size_t>(p.D), 0.0f);
  for (int h = 0; h < p.H; ++h) {
    for (std::int64_t t = sequence_length_q(p, b); t < p.T_q; ++t) {
      store_row(p.o, o_offset(p, b, h, t), p.D, p.dtype, zeros.data());
      if (p.lse != nullptr) {
        p.lse[(static_cast<std::int64_t>(b) * p.H + h) * p.T_q + t] =
            -std::numeric_limits<float>::infinity();
      }
    }
  }
}

}  // namespace fa2b::cpu
