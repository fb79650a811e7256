// SPDX-License-Identifier: Apache-2.0
#include "backends/varlen_arrays.h"

#include <vector>

namespace fa2b {

void VarlenArrays::prepare_with(const Case& c, MemoryTracker& tracker, CopyIn copy_in) {
  reset();
  if (!c.varlen()) return;
  packed_ = c.packing == Packing::packed;
  B_ = static_cast<int>(c.B);
  // Packed: the query offsets then the key offsets (B + 1 each; equal for self-attention
  // lengths); padded: the B lengths.
  std::vector<int> host;
  if (packed_) {
    std::vector<int> offsets(1, 0);
    for (const std::int64_t n : c.lengths) offsets.push_back(offsets.back() + static_cast<int>(n));
    host = offsets;
    host.insert(host.end(), offsets.begin(), offsets.end());
  } else {
    for (const std::int64_t n : c.lengths) host.push_back(static_cast<int>(n));
  }
  TrackedBuffer buffer(tracker, host.size() * sizeof(int), "varlen sequence offsets / lengths");
  copy_in(buffer.get(), host.data(), host.size() * sizeof(int));
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

}  // namespace fa2b
