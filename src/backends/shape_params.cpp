// SPDX-License-Identifier: Apache-2.0
#include "backends/shape_params.h"

#include <cmath>

namespace fa2b {

AttnParams shape_params(const Case& c) {
  AttnParams p;
  const Strides q = tensor_strides(c.layout, c.H, c.T_q, c.D);
  const Strides kv = tensor_strides(c.layout, c.H_kv, c.T_k, c.D);
  p.q_batch_stride = p.o_batch_stride = q.b;
  p.q_head_stride = p.o_head_stride = q.h;
  p.q_row_stride = p.o_row_stride = q.t;
  p.k_batch_stride = p.v_batch_stride = kv.b;
  p.k_head_stride = p.v_head_stride = kv.h;
  p.k_row_stride = p.v_row_stride = kv.t;
  p.B = static_cast<int>(c.B);
  p.H = static_cast<int>(c.H);
  p.H_kv = static_cast<int>(c.H_kv);
  p.T_q = static_cast<int>(c.T_q);
  p.T_k = static_cast<int>(c.T_k);
  p.D = static_cast<int>(c.D);
  p.causal = c.causal;
  p.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(c.D)));
  p.dtype = static_cast<KernelDType>(static_cast<int>(c.dtype));
  return p;
}

}  // namespace fa2b
