// SPDX-License-Identifier: Apache-2.0
#include "backends/cuda/cudnn/sdpa_bwd_graph.h"

#if FA2BENCH_HAVE_CUDNN_HEADERS
#include <chrono>
#include <limits>
#include <vector>

#include "backends/cuda/cudnn/sdpa_bwd_rules.h"

namespace fa2b {

// The operations, tensors and their attributes follow cudnn-frontend's
// CompositeSDPABackwardNode::expand_node (include/cudnn_frontend/node/
// scaled_dot_product_flash_attention.h) for MHA and GQA without bias, dropout, padding mask or
// ragged tensors, with the graph's io type the case's dtype and its intermediate and compute
// types float32; the comments name the frontend's nodes. The operations are added in its
// order.
std::unique_ptr<SdpaPlan> build_sdpa_bwd_plan(const CudnnApi& api, cudnnHandle_t handle,
                                              const AttnParams& p) {
  const auto start = std::chrono::steady_clock::now();
  auto out = std::make_unique<SdpaPlan>();
  out->keep.reserve(160);
  GraphBuilder g(api, out->keep);
  namespace uid = sdpa_uid;

  const cudnnDataType_t io = p.dtype == KernelDType::bf16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_HALF;
  const cudnnDataType_t f32 = CUDNN_DATA_FLOAT;
  const std::int64_t B = p.B, H = p.H, Hkv = p.H_kv, Tq = p.T_q, Tk = p.T_k, D = p.D;
  const CudnnDims q_strides{p.q_batch_stride, p.q_head_stride, p.q_row_stride, 1};
  const CudnnDims k_strides{p.k_batch_stride, p.k_head_stride, p.k_row_stride, 1};
  const CudnnDims v_strides{p.v_batch_stride, p.v_head_stride, p.v_row_stride, 1};
  const CudnnDims o_strides{p.o_batch_stride, p.o_head_stride, p.o_row_stride, 1};
  const CudnnDims rows_strides{H * Tq, Tq, 1, 1};

  // Inputs: K and V enter as K^T and V^T (dims and strides 2 and 3 swapped, as the frontend
  // maps them); dO is laid out like O. Stats is the forward's LSE, [B, H, T_q, 1] packed.
  auto Q = g.tensor(uid::kQ, io, {B, H, Tq, D}, q_strides, false);
  auto KT = g.tensor(uid::kK, io, {B, Hkv, D, Tk},
                     {p.k_batch_stride, p.k_head_stride, 1, p.k_row_stride}, false);
  auto VT = g.tensor(uid::kV, io, {B, Hkv, D, Tk},
                     {p.v_batch_stride, p.v_head_stride, 1, p.v_row_stride}, false);
  auto O = g.tensor(uid::kO, io, {B, H, Tq, D}, o_strides, false);
  auto dO = g.tensor(uid::kDO, io, {B, H, Tq, D}, o_strides, false);
  auto stats = g.tensor(uid::kStats, f32, {B, H, Tq, 1}, rows_strides, false);
  // Outputs, laid out like Q, K and V.
  auto dQ = g.tensor(uid::kDQ, io, {B, H, Tq, D}, q_strides, false);
  auto dK = g.tensor(uid::kDK, io, {B, Hkv, Tk, D}, k_strides, false);
  auto dV = g.tensor(uid::kDV, io, {B, Hkv, Tk, D}, v_strides, false);
  auto scale = g.scalar(uid::kScale, f32);
  auto one = g.scalar(uid::kOne, f32);
  // Non-virtual float32 intermediates (the frontend's softmax_sum and dQ_accum, which it puts in
  // its workspace): the row sums [B, H, T_q, 1] and the dQ accumulator [B, H, T_q, D], packed.
  const CudnnDims q_dims{B, H, Tq, D};
  auto dq_accum = g.tensor(uid::kDQAccum, f32, q_dims, packed_strides(q_dims), false);
  auto row_sums = g.tensor(uid::kRowSums, f32, {B, H, Tq, 1}, rows_strides, false);

  const CudnnDims scores{B, H, Tq, Tk}, rows{B, H, Tq, 1};
  // Transposed scores [B, H, T_k, T_q]: views of [B, H, T_q, T_k] packed.
  const CudnnDims scores_t{B, H, Tk, Tq}, scores_t_strides{H * Tq * Tk, Tq * Tk, 1, Tk};

  // "mul_dO_O", "reduce_dO_o", "scale_dropout_inv": D_i = rowsum(dO o O) * 1. The product's
  // strides are the frontend's ({H*T_q*D, T_q*D, H*D, 1}; virtual, never stored).
  auto do_o = g.virt(f32, {B, H, Tq, D}, {H * Tq * D, Tq * D, H * D, 1});
  g.pointwise(CUDNN_POINTWISE_MUL, f32, dO, O, nullptr, do_o);
  auto sums = g.virt(f32, rows, rows_strides);
  g.reduction(CUDNN_REDUCE_TENSOR_ADD, do_o, sums);
  g.pointwise(CUDNN_POINTWISE_MUL, f32, sums, one, nullptr, row_sums);

  // "matmul_Q_KT", "mul_s_attn_scale", "sub_s_m", the causal mask, "exp_s":
  // P = exp(scale Q K^T - Stats), masked entries exp(lowest) = 0.
  auto s0 = g.virt(f32, scores);
  g.matmul(Q, KT, s0);
  auto s1 = g.virt(f32, scores);
  g.pointwise(CUDNN_POINTWISE_MUL, f32, s0, scale, nullptr, s1);
  auto s2 = g.virt(f32, scores);
  g.pointwise(CUDNN_POINTWISE_SUB, f32, s1, stats, nullptr, s2);
  if (p.causal) s2 = causal_mask(g, s2, scores, p.T_q != p.T_k, *out);
  auto P = g.virt(f32, scores);
  g.pointwise(CUDNN_POINTWISE_EXP, f32, s2, nullptr, nullptr, P);

  // "reshape_p", "matmul_pT_dO" (GQA: into all H heads, then "red_dV_head" over each group):
  // dV = P^T dO, P^T in the input dtype.
  auto PT = g.virt(io, scores_t, scores_t_strides);
  g.reshape(P, PT);
  if (H == Hkv) {
    g.matmul(PT, dO, dV);
  } else {
    auto dv_full = g.virt(io, {B, H, Tk, D});
    g.matmul(PT, dO, dv_full);
    g.reduction(CUDNN_REDUCE_TENSOR_ADD, dv_full, dV);
  }

  // "matmul_dO_VT", "sub_dP_softmax_sum", "mul_dP_exp_s", "mul_dS_attn_scale":
  // dS = scale * P o (dO V^T - D_i).
  auto dP = g.virt(f32, scores);
  g.matmul(dO, VT, dP);
  auto t0 = g.virt(f32, scores);
  g.pointwise(CUDNN_POINTWISE_SUB, f32, dP, row_sums, nullptr, t0);
  auto t1 = g.virt(f32, scores);
  g.pointwise(CUDNN_POINTWISE_MUL, f32, t0, P, nullptr, t1);
  auto dS = g.virt(f32, scores);
  g.pointwise(CUDNN_POINTWISE_MUL, f32, t1, scale, nullptr, dS);

  // "reshape_dS", "matmul_dST_Q" (GQA: "red_dK_head"): dK = dS^T Q, dS^T in the input dtype.
  auto dST = g.virt(io, scores_t, scores_t_strides);
  g.reshape(dS, dST);
  if (H == Hkv) {
    g.matmul(dST, Q, dK);
  } else {
    auto dk_full = g.virt(io, {B, H, Tk, D});
    g.matmul(dST, Q, dk_full);
    g.reduction(CUDNN_REDUCE_TENSOR_ADD, dk_full, dK);
  }

  // "reshape_k", "matmul_dS_K", "identity_dQ": dQ = dS K through the float32 accumulator. The
  // view of K^T as K is virtual and, as in the frontend, of the intermediate type.
  auto K = g.virt(f32, {B, Hkv, Tk, D}, k_strides);
  g.reshape(KT, K);
  g.matmul(dS, K, dq_accum);
  g.pointwise(CUDNN_POINTWISE_IDENTITY, f32, dq_accum, nullptr, nullptr, dQ);

  finalize_sdpa_plan(g, handle, *out, start);
  return out;
}

SdpaBwdVariantPack::SdpaBwdVariantPack(const CudnnApi& api, const SdpaPlan& plan,
                                       const AttnBwdParams& p, void* aux, void* workspace)
    : scale_(p.fwd.scale),
      neg_(std::numeric_limits<float>::lowest()),
      t_q_(p.fwd.T_q),
      t_k_(p.fwd.T_k),
      q_(p.fwd.q),
      k_(p.fwd.k),
      v_(p.fwd.v),
      o_(p.fwd.o),
      d_o_(p.d_o),
      lse_(p.fwd.lse),
      d_q_(p.d_q),
      d_k_(p.d_k),
      d_v_(p.d_v),
      pack_(api, CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR) {
  namespace uid = sdpa_uid;
  const AttnParams& f = p.fwd;
  std::vector<std::int64_t> uids;
  std::vector<void*> ptrs;
  const auto bind = [&](std::int64_t id, const void* ptr) {
    uids.push_back(id);
    ptrs.push_back(const_cast<void*>(ptr));
  };
  bind(uid::kQ, q_);
  bind(uid::kK, k_);
  bind(uid::kV, v_);
  bind(uid::kO, o_);
  bind(uid::kStats, lse_);
  bind(uid::kDO, d_o_);
  bind(uid::kDQ, d_q_);
  bind(uid::kDK, d_k_);
  bind(uid::kDV, d_v_);
  bind(uid::kScale, &scale_);
  bind(uid::kOne, &one_);
  bind(uid::kDQAccum, aux);
  bind(uid::kRowSums, static_cast<char*>(aux) + sdpa_bwd_row_sums_offset(f.B, f.H, f.T_q, f.D));
  if (f.causal) bind(uid::kMaskValue, &neg_);
  if (plan.bottom_right) {
    bind(uid::kSkv, &t_k_);
    bind(uid::kSq, &t_q_);
  }
  fill_variant_pack(api, pack_.get(), uids, ptrs, workspace);
}

bool SdpaBwdVariantPack::matches(const AttnBwdParams& p) const {
  return p.fwd.q == q_ && p.fwd.k == k_ && p.fwd.v == v_ && p.fwd.o == o_ && p.fwd.lse == lse_ &&
         p.d_o == d_o_ && p.d_q == d_q_ && p.d_k == d_k_ && p.d_v == d_v_ && p.fwd.scale == scale_;
}

}  // namespace fa2b
#endif
