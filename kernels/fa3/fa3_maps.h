// SPDX-License-Identifier: Apache-2.0
// Host side of the fa3 kernels' copy-engine maps of Q, K and V, shared by the forward and the
// backward launchers (both included only by the sm_90a instantiation units).
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "common/attn_params.h"
#include "hopper/tensor_map.h"

namespace fa2b {

// The batches, rows and batch strides of the copy engine's maps: the case's, or for a packed
// batch one batch of all its tokens (its batch stride, never stepped, spans the whole tensor).
struct Fa3MapRows {
  int B, T_q, T_k;
  std::int64_t q_batch_stride, k_batch_stride, v_batch_stride, o_batch_stride;

  static Fa3MapRows of(const AttnParams& p) {
    if (p.cu_seqlens_q == nullptr) {
      return {p.B,
              p.T_q,
              p.T_k,
              p.q_batch_stride,
              p.k_batch_stride,
              p.v_batch_stride,
              p.o_batch_stride};
    }
    const auto whole = [](std::int64_t rows, std::int64_t row_stride, std::int64_t heads,
                          std::int64_t head_stride) {
      return std::max(rows * row_stride, heads * head_stride);
    };
    return {1,
            p.total_q,
            p.total_k,
            whole(p.total_q, p.q_row_stride, p.H, p.q_head_stride),
            whole(p.total_k, p.k_row_stride, p.H_kv, p.k_head_stride),
            whole(p.total_k, p.v_row_stride, p.H_kv, p.v_head_stride),
            whole(p.total_q, p.o_row_stride, p.H, p.o_head_stride)};
  }
};

// The copy engine's maps of Q (maps[0], boxes of q_rows rows), K and V (maps[1] and maps[2],
// boxes of kv_rows rows) of a case whose batches and rows `m` gives.
inline cudaError_t encode_fa3_qkv_maps(CUtensorMap* maps, const AttnParams& p, const Fa3MapRows& m,
                                       bool bf16, int q_rows, int kv_rows) {
  cudaError_t e =
      sm90::encode_attn_tensor_map(&maps[0], p.q, bf16, m.B, p.H, m.T_q, p.D, p.q_row_stride,
                                   p.q_head_stride, m.q_batch_stride, q_rows);
  if (e == cudaSuccess) {
    e = sm90::encode_attn_tensor_map(&maps[1], p.k, bf16, m.B, p.H_kv, m.T_k, p.D, p.k_row_stride,
                                     p.k_head_stride, m.k_batch_stride, kv_rows);
  }
  if (e == cudaSuccess) {
    e = sm90::encode_attn_tensor_map(&maps[2], p.v, bf16, m.B, p.H_kv, m.T_k, p.D, p.v_row_stride,
                                     p.v_head_stride, m.v_batch_stride, kv_rows);
  }
  return e;
}

}  // namespace fa2b
