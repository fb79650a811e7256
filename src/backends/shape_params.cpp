// SPDX-License-Identifier: Apache-2.0
#include "backends/shape_params.h"

#include <cmath>

#include "core/paged_kv.h"
#include "core/seq_lengths.h"

namespace fa2b {

AttnParams shape_params(const Case& c) {
  AttnParams p;
  // A packed batch's tensors are one batch of all its tokens (core/seq_lengths.h's TokenLayout),
  // addressed through cu_seqlens: the batch strides are never used.
  const Strides q = tensor_strides(c.layout, c.H, query_layout(c).rows, c.D);
  const Strides o = tensor_strides(c.layout, c.H, query_layout(c).rows, c.Dv());
  const Strides k = tensor_strides(c.layout, c.H_kv, key_layout(c).rows, c.D);
  const Strides v = tensor_strides(c.layout, c.H_kv, key_layout(c).rows, c.Dv());
  p.q_batch_stride = q.b;
  p.q_head_stride = q.h;
  p.q_row_stride = q.t;
  p.o_batch_stride = o.b;
  p.o_head_stride = o.h;
  p.o_row_stride = o.t;
  p.k_batch_stride = k.b;
  p.k_head_stride = k.h;
  p.k_row_stride = k.t;
  p.v_batch_stride = v.b;
  p.v_head_stride = v.h;
  p.v_row_stride = v.t;
  if (c.varlen() && c.packing == Packing::packed) {
    p.q_batch_stride = p.o_batch_stride = p.k_batch_stride = p.v_batch_stride = 0;
    p.total_q = static_cast<int>(query_layout(c).rows);
    p.total_k = static_cast<int>(key_layout(c).rows);
  }
  // A paged cache's pools are [num_pages, page_size, H_kv, D] whatever the layout of Q and O;
  // the runner sets block_table.
  if (c.paged()) {
    p.k_batch_stride = c.page_size * c.H_kv * c.D;
    p.k_head_stride = c.D;
    p.k_row_stride = c.H_kv * c.D;
    p.v_batch_stride = c.page_size * c.H_kv * c.Dv();
    p.v_head_stride = c.Dv();
    p.v_row_stride = c.H_kv * c.Dv();
    p.page_size = static_cast<int>(c.page_size);
    p.pages_per_seq = static_cast<int>(pages_per_seq(c));
  }
  p.B = static_cast<int>(c.B);
  p.H = static_cast<int>(c.H);
  p.H_kv = static_cast<int>(c.H_kv);
  p.T_q = static_cast<int>(c.T_q);
  p.T_k = static_cast<int>(c.T_k);
  p.D = static_cast<int>(c.D);
  p.D_v = static_cast<int>(c.Dv());
  p.causal = c.causal;
  // A bound the shape never reaches is no bound: -1 keeps every width within AttnParams' int
  // and lets a window wider than the shape run the kernels' unmasked path.
  p.window_left =
      c.window.left >= 0 && c.window.left < c.T_k ? static_cast<int>(c.window.left) : -1;
  p.window_right =
      c.window.right >= 0 && c.window.right < c.T_q ? static_cast<int>(c.window.right) : -1;
  p.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(c.D)));
  p.dtype = static_cast<KernelDType>(static_cast<int>(c.dtype));
  return p;
}

}  // namespace fa2b
