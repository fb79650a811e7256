// SPDX-License-Identifier: Apache-2.0
// Host-side support rules shared by our CUDA kernels (fa2, naive): a non-empty shape, query
// heads that group evenly over the key/value heads, and rows that start on 16-byte boundaries
// (both kernels move rows in 16-byte copies). Each kernel adds its own dtype, head-dim and
// grid rules around this.
#pragma once

#include <cstdint>
#include <string>

#include "common/attn_params.h"

namespace fa2b {

// Sets *why (when given) and returns false, for `return support_fail(why, "...")`.
inline bool support_fail(std::string* why, const std::string& msg) {
  if (why != nullptr) *why = msg;
  return false;
}

inline bool aligned16(const void* ptr) {
  return reinterpret_cast<std::uintptr_t>(ptr) % 16 == 0;
}

// The rules above; the messages name `kernel`.
inline bool layout_supported(const AttnParams& p, const std::string& kernel, std::string* why) {
  if (p.B < 1 || p.H < 1 || p.H_kv < 1 || p.T_q < 1 || p.T_k < 1) {
    return support_fail(why, kernel + " needs B, H, H_kv, T_q, T_k >= 1");
  }
  if (p.H % p.H_kv != 0) return support_fail(why, kernel + " needs H to be a multiple of H_kv");
  const std::int64_t strides[] = {p.q_batch_stride, p.q_head_stride, p.q_row_stride,
                                  p.k_batch_stride, p.k_head_stride, p.k_row_stride,
                                  p.v_batch_stride, p.v_head_stride, p.v_row_stride,
                                  p.o_batch_stride, p.o_head_stride, p.o_row_stride};
  for (std::int64_t s : strides) {
    if (s % 8 != 0) {
      return support_fail(why, kernel + " needs every stride to be a multiple of 8 elements");
    }
  }
  if (!aligned16(p.q) || !aligned16(p.k) || !aligned16(p.v) || !aligned16(p.o)) {
    return support_fail(why, kernel + " needs 16-byte aligned Q, K, V, O pointers");
  }
  return true;
}

}  // namespace fa2b
