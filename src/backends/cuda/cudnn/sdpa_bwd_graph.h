// SPDX-License-Identifier: Apache-2.0
// The SDPA backward graph of cuDNN backend descriptors: the pattern cudnn-frontend's SDPA
// backward node (CompositeSDPABackwardNode, non-deterministic, no bias, dropout or padding)
// lowers to, its execution plan, and a variant pack bound to one case's buffers.
#pragma once

#include "backends/cuda/cudnn/graph_builder.h"

#if FA2BENCH_HAVE_CUDNN_HEADERS
#include <cstdint>
#include <memory>

#include "common/attn_params.h"

namespace fa2b {

// Builds the backward graph for `p` (the forward's shapes, strides, dtype, causal; pointers
// unused; dO, dQ, dK, dV take O's, Q's, K's and V's strides, as AttnBwdParams lays them out)
// and the first execution plan the heuristics offer that finalises. The graph reads Q, K, V,
// O, dO and the forward's Stats (p.lse: the natural-log logsumexp of the scaled scores) and
// writes dQ, dK, dV; its float32 dQ accumulator and row sums live in a caller's buffer of
// sdpa_bwd_aux_bytes (sdpa_bwd_rules.h), beside the plan's workspace_bytes. Throws
// CudnnFailure when cuDNN refuses.
std::unique_ptr<SdpaPlan> build_sdpa_bwd_plan(const CudnnApi& api, cudnnHandle_t handle,
                                              const AttnParams& p);

// Variant pack for one backward: device pointers, by-value scalars (kept here), the
// accumulator/row-sums buffer and the workspace.
class SdpaBwdVariantPack {
 public:
  SdpaBwdVariantPack(const CudnnApi& api, const SdpaPlan& plan, const AttnBwdParams& p, void* aux,
                     void* workspace);
  // The pack points at its own by-value scalars: it never moves.
  SdpaBwdVariantPack(const SdpaBwdVariantPack&) = delete;
  SdpaBwdVariantPack& operator=(const SdpaBwdVariantPack&) = delete;
  cudnnBackendDescriptor_t get() const { return pack_.get(); }
  bool matches(const AttnBwdParams& p) const;

 private:
  float scale_ = 1.0f, one_ = 1.0f, neg_ = 0.0f;
  std::int32_t t_q_ = 0, t_k_ = 0;
  const void *q_ = nullptr, *k_ = nullptr, *v_ = nullptr, *o_ = nullptr, *d_o_ = nullptr;
  const float* lse_ = nullptr;
  void *d_q_ = nullptr, *d_k_ = nullptr, *d_v_ = nullptr;
  CudnnDesc pack_;
};

}  // namespace fa2b
#endif
