// SPDX-License-Identifier: Apache-2.0
// The SDPA forward graph of cuDNN backend descriptors (the pattern cudnn-frontend's sdpa node
// lowers to), its execution plan, and a variant pack bound to one case's buffers.
#pragma once

#include "backends/cuda/cudnn/graph_builder.h"

#if FA2BENCH_HAVE_CUDNN_HEADERS
#include <cstdint>
#include <memory>

#include "common/attn_params.h"

namespace fa2b {

// Builds the graph for `p` (shapes, strides, dtype, causal; pointers unused) and the first
// execution plan the heuristics offer that finalises. The graph always writes the Stats
// (logsumexp) output into p.lse, as fa2 does. Throws CudnnFailure when cuDNN refuses.
std::unique_ptr<SdpaPlan> build_sdpa_plan(const CudnnApi& api, cudnnHandle_t handle,
                                          const AttnParams& p);

// Variant pack for one case: device pointers, by-value scalars (kept here) and workspace.
class SdpaVariantPack {
 public:
  SdpaVariantPack(const CudnnApi& api, const SdpaPlan& plan, const AttnParams& p, void* workspace);
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
