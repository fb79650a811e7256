// SPDX-License-Identifier: Apache-2.0
#include "backends/cuda/cudnn/sdpa_graph.h"

#if FA2BENCH_HAVE_CUDNN_HEADERS
#include <chrono>
#include <limits>
#include <vector>

namespace fa2b {

std::unique_ptr<SdpaPlan> build_sdpa_plan(const CudnnApi& api, cudnnHandle_t handle,
                                          const AttnParams& p) {
  const auto start = std::chrono::steady_clock::now();
  auto out = std::make_unique<SdpaPlan>();
  out->keep.reserve(96);
  GraphBuilder g(api, out->keep);
  namespace uid = sdpa_uid;

  const cudnnDataType_t io = p.dtype == KernelDType::bf16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_HALF;
  const cudnnDataType_t f32 = CUDNN_DATA_FLOAT;
  const std::int64_t B = p.B, H = p.H, Hkv = p.H_kv, Tq = p.T_q, Tk = p.T_k, D = p.D;

  // Inputs and outputs with the case's strides; K enters as K^T (dims and strides swapped).
  auto Q = g.tensor(uid::kQ, io, {B, H, Tq, D},
                    {p.q_batch_stride, p.q_head_stride, p.q_row_stride, 1}, false);
  auto KT = g.tensor(uid::kK, io, {B, Hkv, D, Tk},
                     {p.k_batch_stride, p.k_head_stride, 1, p.k_row_stride}, false);
  auto V = g.tensor(uid::kV, io, {B, Hkv, Tk, D},
                    {p.v_batch_stride, p.v_head_stride, p.v_row_stride, 1}, false);
  auto O = g.tensor(uid::kO, io, {B, H, Tq, D},
                    {p.o_batch_stride, p.o_head_stride, p.o_row_stride, 1}, false);
  // Stats (logsumexp) in the case's LSE buffer: [B, H, T_q] float32, packed.
  auto stats = g.tensor(uid::kStats, f32, {B, H, Tq, 1}, {H * Tq, Tq, 1, 1}, false);
  auto scale = g.scalar(uid::kScale, f32);

  const CudnnDims scores{B, H, Tq, Tk}, rows{B, H, Tq, 1};
  // S = scale * Q K^T
  auto s0 = g.virt(f32, scores);
  g.matmul(Q, KT, s0);
  auto s = g.virt(f32, scores);
  g.pointwise(CUDNN_POINTWISE_MUL, f32, s0, scale, nullptr, s);
  if (p.causal) s = causal_mask(g, s, scores, p.T_q != p.T_k, *out);

  // Softmax with stats: m = max, e = exp(s - m), z = sum e, Stats = m + log z, P = e / z.
  // (cuDNN 9.19's heuristics offer no engine for this pattern without the Stats output.)
  auto m = g.virt(f32, rows);
  g.reduction(CUDNN_REDUCE_TENSOR_MAX, s, m);
  auto centred = g.virt(f32, scores);
  g.pointwise(CUDNN_POINTWISE_SUB, f32, s, m, nullptr, centred);
  auto e = g.virt(f32, scores);
  g.pointwise(CUDNN_POINTWISE_EXP, f32, centred, nullptr, nullptr, e);
  auto z = g.virt(f32, rows);
  g.reduction(CUDNN_REDUCE_TENSOR_ADD, e, z);
  auto log_z = g.virt(f32, rows);
  g.pointwise(CUDNN_POINTWISE_LOG, f32, z, nullptr, nullptr, log_z);
  g.pointwise(CUDNN_POINTWISE_ADD, f32, m, log_z, nullptr, stats);
  auto P = g.virt(io, scores);  // the second matmul takes P in the input dtype
  g.pointwise(CUDNN_POINTWISE_DIV, f32, e, z, nullptr, P);
  // O = P V
  g.matmul(P, V, O);

  finalize_sdpa_plan(g, handle, *out, start);
  return out;
}

SdpaVariantPack::SdpaVariantPack(const CudnnApi& api, const SdpaPlan& plan, const AttnParams& p,
                                 void* workspace)
    : scale_(p.scale),
      neg_(std::numeric_limits<float>::lowest()),
      t_q_(p.T_q),
      t_k_(p.T_k),
      q_(p.q),
      k_(p.k),
      v_(p.v),
      o_(p.o),
      lse_(p.lse),
      pack_(api, CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR) {
  namespace uid = sdpa_uid;
  std::vector<std::int64_t> uids = {uid::kQ, uid::kK, uid::kV, uid::kO, uid::kStats, uid::kScale};
  std::vector<void*> ptrs = {
      const_cast<void*>(q_), const_cast<void*>(k_), const_cast<void*>(v_), o_, lse_, &scale_};
  if (p.causal) {
    uids.push_back(uid::kMaskValue);
    ptrs.push_back(&neg_);
  }
  if (plan.bottom_right) {
    uids.push_back(uid::kSkv);
    ptrs.push_back(&t_k_);
    uids.push_back(uid::kSq);
    ptrs.push_back(&t_q_);
  }
  fill_variant_pack(api, pack_.get(), uids, ptrs, workspace);
}

bool SdpaVariantPack::matches(const AttnParams& p) const {
  return p.q == q_ && p.k == k_ && p.v == v_ && p.o == o_ && p.lse == lse_ && p.scale == scale_;
}

}  // namespace fa2b
#endif
