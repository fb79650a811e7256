// SPDX-License-Identifier: Apache-2.0
#include "backends/cuda/cudnn/sdpa_graph.h"

#if FA2BENCH_HAVE_CUDNN_HEADERS
#include <chrono>
#include <cstring>
#include <limits>
#include <vector>

#include "core/seq_lengths.h"

namespace fa2b {

std::vector<unsigned char> sdpa_varlen_image(const Case& c, const AttnParams& p,
                                             std::vector<std::size_t>& offsets) {
  std::vector<unsigned char> image;
  offsets.clear();
  const auto append = [&](const void* data, std::size_t bytes) {
    const std::size_t at =
        (image.size() + kSdpaVarlenAlign - 1) / kSdpaVarlenAlign * kSdpaVarlenAlign;
    image.resize(at + bytes);
    if (bytes > 0) std::memcpy(image.data() + at, data, bytes);
    offsets.push_back(at);
  };
  std::vector<std::int32_t> len32;
  for (const std::int64_t n : c.lengths) len32.push_back(static_cast<std::int32_t>(n));
  append(len32.data(), len32.size() * sizeof(std::int32_t));  // seq_len_q
  append(len32.data(), len32.size() * sizeof(std::int32_t));  // seq_len_kv (self-attention)
  if (c.packing == Packing::packed) {
    const std::vector<std::int64_t> cu = sequence_offsets(c);
    for (const std::int64_t stride :
         {p.q_row_stride, p.k_row_stride, p.v_row_stride, p.o_row_stride, std::int64_t{p.H}}) {
      std::vector<std::int64_t> off;
      for (const std::int64_t token : cu) off.push_back(token * stride);
      append(off.data(), off.size() * sizeof(std::int64_t));
    }
  }
  return image;
}

std::unique_ptr<SdpaPlan> build_sdpa_plan(const CudnnApi& api, cudnnHandle_t handle,
                                          const AttnParams& p, const SdpaVarlen& varlen) {
  const auto start = std::chrono::steady_clock::now();
  auto out = std::make_unique<SdpaPlan>();
  out->keep.reserve(96);
  GraphBuilder g(api, out->keep);
  namespace uid = sdpa_uid;

  const cudnnDataType_t io = p.dtype == KernelDType::bf16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_HALF;
  const cudnnDataType_t f32 = CUDNN_DATA_FLOAT;
  const std::int64_t B = p.B, H = p.H, Hkv = p.H_kv, Tq = p.T_q, Tk = p.T_k, D = p.D;

  const bool padding = varlen.kind != SdpaVarlen::Kind::dense;
  const bool ragged = varlen.kind == SdpaVarlen::Kind::packed;
  out->padding = padding;
  out->ragged = ragged;
  // Packed: one ragged-offset tensor per buffer, [B+1,1,1,1] int64 (cudnn-frontend's samples
  // and tests), and the batch strides (unused by a ragged tensor; 0 in p) those of a padded
  // THD tensor of the longest sequence, as cudnn-frontend's packed tensors declare them.
  const auto offsets = [&](std::int64_t id) -> cudnnBackendDescriptor_t {
    if (!ragged) return nullptr;
    return g.tensor(id, CUDNN_DATA_INT64, {B + 1, 1, 1, 1}, {1, 1, 1, 1}, false);
  };
  const auto batch_stride = [&](std::int64_t stride, std::int64_t row_stride, std::int64_t T) {
    return ragged ? T * row_stride : stride;
  };

  // Inputs and outputs with the case's strides; K enters as K^T (dims and strides swapped).
  auto Q = g.tensor(
      uid::kQ, io, {B, H, Tq, D},
      {batch_stride(p.q_batch_stride, p.q_row_stride, Tq), p.q_head_stride, p.q_row_stride, 1},
      false, false, offsets(uid::kQOffsets));
  auto KT = g.tensor(
      uid::kK, io, {B, Hkv, D, Tk},
      {batch_stride(p.k_batch_stride, p.k_row_stride, Tk), p.k_head_stride, 1, p.k_row_stride},
      false, false, offsets(uid::kKOffsets));
  auto V = g.tensor(
      uid::kV, io, {B, Hkv, Tk, D},
      {batch_stride(p.v_batch_stride, p.v_row_stride, Tk), p.v_head_stride, p.v_row_stride, 1},
      false, false, offsets(uid::kVOffsets));
  auto O = g.tensor(
      uid::kO, io, {B, H, Tq, D},
      {batch_stride(p.o_batch_stride, p.o_row_stride, Tq), p.o_head_stride, p.o_row_stride, 1},
      false, false, offsets(uid::kOOffsets));
  // Stats (logsumexp), float32: dense and padded in the case's LSE buffer, [B, H, T_q]; packed
  // token-major, [total_q, H] from element cu_seqlens_q[b] * H (the THD Stats layout of
  // cudnn-frontend and PyTorch's nested tensors), in the backend's own buffer.
  auto stats = ragged ? g.tensor(uid::kStats, f32, {B, H, Tq, 1}, {Tq * H, 1, H, 1}, false, false,
                                 offsets(uid::kStatsOffsets))
                      : g.tensor(uid::kStats, f32, {B, H, Tq, 1}, {H * Tq, Tq, 1, 1}, false);
  auto scale = g.scalar(uid::kScale, f32);
  // Per-sequence lengths ([B,1,1,1] int32, cudnn-frontend's seq_len_q / seq_len_kv).
  cudnnBackendDescriptor_t seq_q = nullptr, seq_kv = nullptr;
  if (padding) {
    seq_q = g.tensor(uid::kSeqLenQ, CUDNN_DATA_INT32, {B, 1, 1, 1}, {1, 1, 1, 1}, false);
    seq_kv = g.tensor(uid::kSeqLenKv, CUDNN_DATA_INT32, {B, 1, 1, 1}, {1, 1, 1, 1}, false);
  }

  const CudnnDims scores{B, H, Tq, Tk}, rows{B, H, Tq, 1};
  // S = scale * Q K^T
  // (Variable-length: M and N of each batch overridden by its lengths, cudnn-frontend's bmm1.)
  auto s0 = g.virt(f32, scores);
  g.matmul(Q, KT, s0, seq_q, seq_kv, nullptr);
  auto s = g.virt(f32, scores);
  g.pointwise(CUDNN_POINTWISE_MUL, f32, s0, scale, nullptr, s);
  // cudnn-frontend's order: scale, padding mask, then the causal (diagonal band) mask. A
  // variable-length batch is self-attention per sequence (T_q == T_k of each), so its causal
  // mask is the unshifted one.
  if (padding) s = padding_mask(g, s, scores, seq_q, seq_kv);
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
  // O = P V (variable-length: M and K overridden, cudnn-frontend's bmm2)
  g.matmul(P, V, O, seq_q, nullptr, seq_kv);

  finalize_sdpa_plan(g, handle, *out, start);
  return out;
}

SdpaVariantPack::SdpaVariantPack(const CudnnApi& api, const SdpaPlan& plan, const AttnParams& p,
                                 void* workspace, const SdpaVarlenBuffers& vb)
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
  // A packed plan writes its Stats to the backend's token-major buffer, not to the case's LSE.
  void* stats = plan.ragged ? vb.stats : lse_;
  if (stats == nullptr && plan.ragged) {
    throw CudnnFailure("variant pack: the packed plan's Stats buffer is unbound");
  }
  std::vector<void*> ptrs = {
      const_cast<void*>(q_), const_cast<void*>(k_), const_cast<void*>(v_), o_, stats, &scale_};
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
  const auto bind = [&](std::int64_t id, const void* ptr) {
    if (ptr == nullptr) throw CudnnFailure("variant pack: a varlen array of the plan is unbound");
    uids.push_back(id);
    ptrs.push_back(const_cast<void*>(ptr));
  };
  if (plan.padding) {
    bind(uid::kSeqLenQ, vb.seq_len_q);
    bind(uid::kSeqLenKv, vb.seq_len_kv);
    uids.push_back(uid::kPadMaskValue);
    ptrs.push_back(&neg_);
  }
  if (plan.ragged) {
    bind(uid::kQOffsets, vb.q_offsets);
    bind(uid::kKOffsets, vb.k_offsets);
    bind(uid::kVOffsets, vb.v_offsets);
    bind(uid::kOOffsets, vb.o_offsets);
    bind(uid::kStatsOffsets, vb.stats_offsets);
  }
  fill_variant_pack(api, pack_.get(), uids, ptrs, workspace);
}

bool SdpaVariantPack::matches(const AttnParams& p) const {
  return p.q == q_ && p.k == k_ && p.v == v_ && p.o == o_ && p.lse == lse_ && p.scale == scale_;
}

}  // namespace fa2b
#endif
