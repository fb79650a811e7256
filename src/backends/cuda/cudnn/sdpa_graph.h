// The SDPA forward graph of cuDNN backend descriptors (the pattern cudnn-frontend's sdpa node
// lowers to), its execution plan, and a variant pack bound to one case's buffers.
#pragma once

#include "runtime/cuda/cudnn_api.h"

#if FA2BENCH_HAVE_CUDNN_HEADERS
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/attn_params.h"

namespace fa2b {

// A cuDNN call failed; what() is "<call>: <status>: <cuDNN's message>".
class CudnnFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Owns one backend descriptor.
class CudnnDesc {
 public:
  CudnnDesc() = default;
  CudnnDesc(const CudnnApi& api, cudnnBackendDescriptorType_t type);
  ~CudnnDesc();
  CudnnDesc(const CudnnDesc&) = delete;
  CudnnDesc& operator=(const CudnnDesc&) = delete;
  CudnnDesc(CudnnDesc&& o) noexcept : api_(o.api_), d_(o.d_) { o.d_ = nullptr; }
  CudnnDesc& operator=(CudnnDesc&& o) noexcept;
  cudnnBackendDescriptor_t get() const { return d_; }

 private:
  const CudnnApi* api_ = nullptr;
  cudnnBackendDescriptor_t d_ = nullptr;
};

// A finalised execution plan for one SDPA shape, with every descriptor it was built from.
struct SdpaPlan {
  std::vector<CudnnDesc> keep;  // tensors, ops, graph, engine configs (kept alive)
  CudnnDesc plan;
  std::int64_t workspace_bytes = 0;
  bool bottom_right = false;  // the mask adds T_k - T_q to the row index
  double build_ms = 0;
  // Which engine ran, read back from the engine config the plan was built from:
  // "heur A #0: engine 8, knobs 24=1,25=0" (heuristics mode A or fallback, index of the
  // heuristics result, the engine's global index, knob type=value pairs). A read-back that
  // fails says so in place of the engine and knobs; it never fails the plan.
  std::string info;
};

// Builds the graph for `p` (shapes, strides, dtype, causal; pointers unused) and the first
// execution plan the heuristics offer that finalises. The graph always writes the Stats
// (logsumexp) output into p.lse, as fa2 does. Throws CudnnFailure when cuDNN refuses.
std::unique_ptr<SdpaPlan> build_sdpa_plan(const CudnnApi& api, cudnnHandle_t handle,
                                          const AttnParams& p);

// What the plan's engine config holds: "engine 8, knobs 24=1,25=0" ("knobs none" without
// knobs), or "engine ? (read-back failed: <call>: <status>)". Never throws.
std::string describe_engine_config(const CudnnApi& api, cudnnBackendDescriptor_t engine_cfg);

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
