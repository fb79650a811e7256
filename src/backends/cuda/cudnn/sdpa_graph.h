// SPDX-License-Identifier: Apache-2.0
// The SDPA forward graph of cuDNN backend descriptors (the pattern cudnn-frontend's sdpa node
// lowers to), its execution plan, and a variant pack bound to one case's buffers.
#pragma once

#include "backends/cuda/cudnn/graph_builder.h"

#if FA2BENCH_HAVE_CUDNN_HEADERS
#include <cstdint>
#include <memory>
#include <vector>

#include "common/attn_params.h"
#include "core/case.h"

namespace fa2b {

// How the forward graph sees a variable-length batch (common/attn_params.h's two layouts).
//   dense   no lengths: every sequence T_q x T_k.
//   padded  the dense tensors with cudnn-frontend's padding mask: per-sequence lengths
//           (kSeqLenQ, kSeqLenKv, [B,1,1,1] int32) mask rows and columns past them and override
//           the matmuls' M, N (first) and M, K (second).
//   packed  the padded graph plus ragged offsets ([B+1,1,1,1] int64 element offsets) on Q, K, V,
//           O and the Stats, as cudnn-frontend's THD ("packed") layout: sequence b starts at
//           element offsets[b] of each buffer, its rows at the tensors' row strides. The Stats
//           are token-major, [total_q, H] (offset cu_seqlens_q[b] * H), the THD layout of
//           cudnn-frontend and PyTorch's nested tensors. That is not the case's LSE layout
//           ([H, total_q], common/attn_params.h), so they go to a buffer of the backend's own
//           and the case's LSE stays unwritten: nothing reads it, since varlen runs forward only.
struct SdpaVarlen {
  enum class Kind { dense, padded, packed };
  Kind kind = Kind::dense;
};

// The varlen arrays of one case as the variant pack binds them (device pointers; null for a
// dense case). Offsets in elements of their tensor (int64); lengths int32.
struct SdpaVarlenBuffers {
  const void* seq_len_q = nullptr;
  const void* seq_len_kv = nullptr;
  const void* q_offsets = nullptr;
  const void* k_offsets = nullptr;
  const void* v_offsets = nullptr;
  const void* o_offsets = nullptr;
  const void* stats_offsets = nullptr;
  void* stats = nullptr;  // packed: the token-major Stats, AttnParams::total_q * H floats
};

// The host images of those arrays for case c (self-attention lengths: the same for queries
// and keys) in tensors of `p`'s row strides: c's lengths as int32, then (packed only) the ragged
// offsets, B + 1 int64 each: cu[b] * row stride for Q, K, V, O and cu[b] * H for the Stats
// (cu: core/seq_lengths.h's sequence_offsets). Each array starts at a multiple of
// kSdpaVarlenAlign bytes of the returned image; `offsets` receives where (the same order as
// SdpaVarlenBuffers' members).
constexpr std::size_t kSdpaVarlenAlign = 256;
std::vector<unsigned char> sdpa_varlen_image(const Case& c, const AttnParams& p,
                                             std::vector<std::size_t>& offsets);

// Builds the graph for `p` (shapes, strides, dtype, causal; pointers unused) and the first
// execution plan the heuristics offer that finalises. The graph always writes the Stats
// (logsumexp) output: into p.lse, as fa2 does, except for a packed batch (SdpaVarlen above).
// Throws CudnnFailure when cuDNN refuses.
std::unique_ptr<SdpaPlan> build_sdpa_plan(const CudnnApi& api, cudnnHandle_t handle,
                                          const AttnParams& p, const SdpaVarlen& varlen = {});

// Variant pack for one case: device pointers, by-value scalars (kept here) and workspace; `vb`
// the varlen arrays when the plan was built for a variable-length batch.
class SdpaVariantPack {
 public:
  SdpaVariantPack(const CudnnApi& api, const SdpaPlan& plan, const AttnParams& p, void* workspace,
                  const SdpaVarlenBuffers& vb = {});
  // The pack points at its own by-value scalars: it never moves.
  SdpaVariantPack(const SdpaVariantPack&) = delete;
  SdpaVariantPack& operator=(const SdpaVariantPack&) = delete;
  cudnnBackendDescriptor_t get() const { return pack_.get(); }
  bool matches(const AttnParams& p) const;

 private:
  float scale_ = 1.0f, neg_ = 0.0f;
  std::int32_t t_q_ = 0, t_k_ = 0;
  const void *q_ = nullptr, *k_ = nullptr, *v_ = nullptr;
  void* o_ = nullptr;
  float* lse_ = nullptr;
  CudnnDesc pack_;
};

}  // namespace fa2b
#endif
