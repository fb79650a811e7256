// SPDX-License-Identifier: Apache-2.0
// cudnn: cuDNN's fused flash attention, forward and backward, built through the backend
// (graph) API from a library loaded at run time. Plans are built once per shape and cached for
// the sweep. Variable-length batches run forward only: padded through cudnn-frontend's padding
// mask, packed through ragged-offset tensors on Q, K, V, O and the Stats (cudnn/sdpa_graph.h).
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <map>
#include <string>
#include <vector>

#include "backends/cuda/cuda_backends.h"
#include "backends/cuda/cudnn/sdpa_bwd_graph.h"
#include "backends/cuda/cudnn/sdpa_bwd_rules.h"
#include "backends/cuda/cudnn/sdpa_graph.h"
#include "runtime/cuda/cuda_check.h"
#include "runtime/cuda/cudnn_api.h"

namespace fa2b {
namespace {

// What this backend refuses before loading cuDNN: the refusal is ours, whatever library this
// machine has.
Support refusals_before_loading(const Case& c, const TargetInfo& t) {
  if (!t.cuda) return Support::no("cudnn needs the cuda target");
  return no_window_support(
      c, "cudnn",
      "our graphs (cudnn/sdpa_graph.cpp, sdpa_bwd_graph.cpp) build the causal mask only; "
      "cuDNN's SDPA takes a sliding window (cudnn-frontend's diagonal band left bound) but this "
      "backend does not build that mask yet");
}

#if FA2BENCH_HAVE_CUDNN_HEADERS
// How the forward graph sees the case's batch: dense, padded (padding mask) or packed (ragged
// offsets).
SdpaVarlen sdpa_varlen(const Case& c) {
  SdpaVarlen v;
  if (!c.varlen()) return v;
  v.kind = c.packing == Packing::packed ? SdpaVarlen::Kind::packed : SdpaVarlen::Kind::padded;
  return v;
}

// Everything a plan depends on: shape, strides (layout), dtype, causal, and for a
// variable-length batch its kind (the lengths and offsets are data of the variant pack). The
// backward's dO, dQ, dK and dV take O's, Q's, K's and V's strides, so the same key names its plan.
std::string plan_key(const AttnParams& p, const SdpaVarlen& v = {}) {
  return fmt::format("{}x{}x{}x{}x{}x{}|{},{},{}|{},{},{}|{},{},{}|{},{},{}|{}|{}|varlen{}", p.B,
                     p.H, p.H_kv, p.T_q, p.T_k, p.D, p.q_batch_stride, p.q_head_stride,
                     p.q_row_stride, p.k_batch_stride, p.k_head_stride, p.k_row_stride,
                     p.v_batch_stride, p.v_head_stride, p.v_row_stride, p.o_batch_stride,
                     p.o_head_stride, p.o_row_stride, static_cast<int>(p.dtype), p.causal,
                     static_cast<int>(v.kind));
}

class CudnnBackend final : public Backend {
 public:
  ~CudnnBackend() override {
    release();
    plans_.clear();
    bwd_plans_.clear();
    if (handle_ != nullptr && api_ != nullptr) (void)api_->Destroy(handle_);
  }

  std::string_view name() const override { return "cudnn"; }
  bool on_device() const override { return true; }

  Support supports(const Case& c, const TargetInfo& t) const override {
    const Support ours = refusals_before_loading(c, t);
    if (!ours.ok) return ours;
    std::string why;
    const CudnnApi* api = cudnn_api(&why);
    if (api == nullptr) return Support::no(fmt::format("cuDNN not found ({})", why));
    if (c.dtype == DType::fp32) {
      return Support::no("fp32 is not supported by cudnn's fused attention (use fp16 or bf16)");
    }
    if (c.H % c.H_kv != 0) return Support::no("H must be a multiple of H_kv");
    if (c.causal && c.T_q > c.T_k) {
      return Support::no(
          "causal with T_q > T_k: rows that see no key would need LSE=-inf and zero output, "
          "which cuDNN's masked softmax does not give");
    }
    constexpr std::int64_t kIntMax = 2147483647;
    if (c.T_q > kIntMax || c.T_k > kIntMax) return Support::no("T exceeds 2^31-1");
    if (c.varlen()) {
      if (runs_backward(c.mode)) {
        return Support::no(
            "cudnn runs variable-length batches forward only: its backward graph "
            "(cudnn/sdpa_bwd_graph.cpp) has no padding mask or ragged offsets yet");
      }
      // cudnn-frontend: ragged tensors with H_q != H_kv need cuDNN 9.6.
      if (c.packing == Packing::packed && c.H != c.H_kv && api->GetVersion() < 90600) {
        return Support::no(
            fmt::format("packed (ragged) grouped-query attention needs cuDNN >= 9.6 (this is {})",
                        api->GetVersion()));
      }
    }
    if (runs_backward(c.mode)) {
      const std::string refusal =
          sdpa_bwd_refusal(c, t.cc_major, static_cast<std::int64_t>(api->GetVersion()));
      if (!refusal.empty()) return Support::no(refusal);
    }
    return catalog_mode_support(c, name());
  }

  // Builds (or takes from the cache) the forward's execution plan, and in the training modes
  // the backward's; allocates their workspaces (and the backward's dQ accumulator and row
  // sums) through the tracker and binds the forward's buffers in a variant pack. The
  // backward's pack is bound on the first run_backward() (prepare() does not see dO, dQ, dK,
  // dV).
  void prepare(const Case& c, const AttnParams& p, MemoryTracker& tracker) override {
    release();
    std::string why;
    api_ = cudnn_api(&why);
    if (api_ == nullptr) throw UnsupportedCase(fmt::format("cuDNN not found ({})", why));
    if (handle_ == nullptr) {
      const cudnnStatus_t s = api_->Create(&handle_);
      if (s != CUDNN_STATUS_SUCCESS) {
        handle_ = nullptr;
        throw CudnnFailure("cudnnCreate: " + cudnn_status_text(*api_, s));
      }
    }
    const SdpaVarlen varlen = sdpa_varlen(c);
    const std::string key = plan_key(p, varlen);
    const SdpaPlan& plan = cached_plan(
        plans_, key, "cuDNN: ", [&] { return build_sdpa_plan(*api_, handle_, p, varlen); });
    const SdpaPlan* bwd = nullptr;
    if (runs_backward(c.mode)) {
      bwd = &cached_plan(bwd_plans_, key, "cuDNN backward: ", [&] {
        return build_sdpa_bwd_plan(*api_, handle_, p);
      });
    }
    if (plan.workspace_bytes > 0) {
      workspace_ =
          TrackedBuffer(tracker, static_cast<std::size_t>(plan.workspace_bytes), "cuDNN workspace");
    }
    if (bwd != nullptr) {
      aux_ =
          TrackedBuffer(tracker, static_cast<std::size_t>(sdpa_bwd_aux_bytes(p.B, p.H, p.T_q, p.D)),
                        "cuDNN backward dQ accumulator and row sums");
      if (bwd->workspace_bytes > 0) {
        bwd_workspace_ = TrackedBuffer(tracker, static_cast<std::size_t>(bwd->workspace_bytes),
                                       "cuDNN backward workspace");
      }
    }
    if (varlen.kind != SdpaVarlen::Kind::dense) {
      // The lengths and (packed) ragged offsets, copied in once here, outside the timed region.
      std::vector<std::size_t> at;
      const std::vector<unsigned char> image = sdpa_varlen_image(c, p, at);
      varlen_buf_ = TrackedBuffer(tracker, image.size(), "cuDNN varlen lengths and ragged offsets");
      FA2B_CUDA_CHECK(
          cudaMemcpy(varlen_buf_.get(), image.data(), image.size(), cudaMemcpyHostToDevice));
      const auto* base = static_cast<const unsigned char*>(varlen_buf_.get());
      vb_.seq_len_q = base + at[0];
      vb_.seq_len_kv = base + at[1];
      if (varlen.kind == SdpaVarlen::Kind::packed) {
        vb_.q_offsets = base + at[2];
        vb_.k_offsets = base + at[3];
        vb_.v_offsets = base + at[4];
        vb_.o_offsets = base + at[5];
        vb_.stats_offsets = base + at[6];
        // cuDNN's packed Stats are token-major, unlike the case's LSE (cudnn/sdpa_graph.h); the
        // fused engine needs the output, so it is kept here and counted in the peak.
        stats_buf_ = TrackedBuffer(tracker, static_cast<std::size_t>(p.total_q) * p.H * 4,
                                   "cuDNN packed Stats (token-major)");
        vb_.stats = stats_buf_.get();
      }
    }
    pack_ = std::make_unique<SdpaVariantPack>(*api_, plan, p, workspace_.get(), vb_);
    plan_ = &plan;
    key_ = key;
    varlen_ = varlen;
    bwd_plan_ = bwd;
    stream_set_ = false;
  }

  // Other buffers of the prepared shape (a model's layers share one prepared backend) get a
  // variant pack of their own: a host-side descriptor, the plan and workspaces are reused. The
  // shape key is formed only then, so the timed calls on the prepared buffers stay a pointer
  // comparison.
  // The variant pack binds the prepared pointers; other inputs rebuild it on the host inside
  // the timed region, which the events would time.
  bool rotates_inputs(std::string* why) const override {
    if (why) {
      *why =
          "cudnn binds its plan's variant pack to the prepared input pointers (another input set "
          "rebuilds it on the host inside the timed region)";
    }
    return false;
  }

  void run(const AttnParams& p, void* stream) override {
    if (plan_ == nullptr || !pack_) {
      throw std::runtime_error("cudnn: run() without a prepare()");
    }
    if (!pack_->matches(p)) {
      if (plan_key(p, varlen_) != key_) {
        throw std::runtime_error("cudnn: run() on a shape other than the prepared one");
      }
      pack_ = std::make_unique<SdpaVariantPack>(*api_, *plan_, p, workspace_.get(), vb_);
    }
    execute(plan_->plan.get(), pack_->get(), stream);
  }

  void run_backward(const AttnBwdParams& p, void* stream) override {
    if (bwd_plan_ == nullptr || plan_ == nullptr) {
      throw std::runtime_error("cudnn: run_backward() without a prepare() in a training mode");
    }
    if (!bwd_pack_ || !bwd_pack_->matches(p)) {
      if (plan_key(p.fwd) != key_) {
        throw std::runtime_error("cudnn: run_backward() on a shape other than the prepared one");
      }
      bwd_pack_ = std::make_unique<SdpaBwdVariantPack>(*api_, *bwd_plan_, p, aux_.get(),
                                                       bwd_workspace_.get());
    }
    execute(bwd_plan_->plan.get(), bwd_pack_->get(), stream);
  }

  // The engine the prepared plan runs (see SdpaPlan::info); in the training modes also the
  // backward's engine and both plans' workspace sizes (tracked, not predicted).
  std::string info() const override {
    if (plan_ == nullptr) return {};
    if (bwd_plan_ == nullptr) return plan_->info;
    return fmt::format("{}; backward: {}; plan workspace bytes: forward {}, backward {}",
                       plan_->info, bwd_plan_->info, plan_->workspace_bytes,
                       bwd_plan_->workspace_bytes);
  }

  void release() override {
    bwd_pack_.reset();
    pack_.reset();
    plan_ = nullptr;
    bwd_plan_ = nullptr;
    bwd_workspace_.reset();
    aux_.reset();
    workspace_.reset();
    varlen_buf_.reset();
    stats_buf_.reset();
    vb_ = {};
    varlen_ = {};
  }

 private:
  struct Entry {
    std::unique_ptr<SdpaPlan> plan;
    std::string refusal;  // why cuDNN refused the shape, when plan is null
  };

  // The cache's plan for `key`, built on first use; UnsupportedCase("<prefix><cuDNN's
  // message>") when cuDNN refused it (then or before).
  template <typename Build>
  static const SdpaPlan& cached_plan(std::map<std::string, Entry>& cache, const std::string& key,
                                     const char* prefix, Build&& build) {
    auto it = cache.find(key);
    if (it == cache.end()) {
      Entry e;
      try {
        e.plan = build();
      } catch (const CudnnFailure& f) {
        e.refusal = f.what();
      }
      it = cache.emplace(key, std::move(e)).first;
    }
    if (!it->second.plan) throw UnsupportedCase(prefix + it->second.refusal);
    return *it->second.plan;
  }

  void execute(cudnnBackendDescriptor_t plan, cudnnBackendDescriptor_t pack, void* stream) {
    if (!stream_set_ || stream != stream_) {
      const cudnnStatus_t s = api_->SetStream(handle_, static_cast<cudaStream_t>(stream));
      if (s != CUDNN_STATUS_SUCCESS) {
        throw CudnnFailure("cudnnSetStream: " + cudnn_status_text(*api_, s));
      }
      stream_ = stream;
      stream_set_ = true;
    }
    const cudnnStatus_t s = api_->BackendExecute(handle_, plan, pack);
    if (s != CUDNN_STATUS_SUCCESS) {
      throw CudnnFailure("cudnnBackendExecute: " + cudnn_status_text(*api_, s));
    }
  }

  const CudnnApi* api_ = nullptr;
  cudnnHandle_t handle_ = nullptr;
  std::map<std::string, Entry> plans_, bwd_plans_;
  const SdpaPlan* plan_ = nullptr;
  const SdpaPlan* bwd_plan_ = nullptr;
  std::unique_ptr<SdpaVariantPack> pack_;
  std::unique_ptr<SdpaBwdVariantPack> bwd_pack_;
  std::string key_;  // plan_key of the prepared case
  TrackedBuffer workspace_, aux_, bwd_workspace_;
  TrackedBuffer varlen_buf_;  // the varlen arrays of the prepared case (vb_ points into it)
  TrackedBuffer stats_buf_;   // packed: cuDNN's token-major Stats (vb_.stats)
  SdpaVarlenBuffers vb_;
  SdpaVarlen varlen_;
  void* stream_ = nullptr;
  bool stream_set_ = false;
};
#else
class CudnnBackend final : public Backend {
 public:
  std::string_view name() const override { return "cudnn"; }
  bool on_device() const override { return true; }
  Support supports(const Case& c, const TargetInfo& t) const override {
    const Support ours = refusals_before_loading(c, t);
    if (!ours.ok) return ours;
    return Support::no("cuDNN not found (its headers were missing when fa2bench was built)");
  }
  void run(const AttnParams&, void*) override {}
};
#endif

}  // namespace

std::unique_ptr<Backend> make_cudnn_backend() {
  return std::make_unique<CudnnBackend>();
}

}  // namespace fa2b
