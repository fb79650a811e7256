// cudnn: cuDNN's fused flash attention forward, built through the backend (graph) API from a
// library loaded at run time. Plans are built once per shape and cached for the sweep.
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <map>
#include <string>

#include "backends/cuda/cuda_backends.h"
#include "backends/cuda/cudnn/sdpa_graph.h"
#include "runtime/cuda/cudnn_api.h"

namespace fa2b {
namespace {

#if FA2BENCH_HAVE_CUDNN_HEADERS
// Everything a plan depends on: shape, strides (layout), dtype, causal.
std::string plan_key(const AttnParams& p) {
  return fmt::format("{}x{}x{}x{}x{}x{}|{},{},{}|{},{},{}|{},{},{}|{},{},{}|{}|{}", p.B, p.H,
                     p.H_kv, p.T_q, p.T_k, p.D, p.q_batch_stride, p.q_head_stride, p.q_row_stride,
                     p.k_batch_stride, p.k_head_stride, p.k_row_stride, p.v_batch_stride,
                     p.v_head_stride, p.v_row_stride, p.o_batch_stride, p.o_head_stride,
                     p.o_row_stride, static_cast<int>(p.dtype), p.causal);
}

class CudnnBackend final : public Backend {
 public:
  ~CudnnBackend() override {
    release();
    plans_.clear();
    if (handle_ != nullptr && api_ != nullptr) (void)api_->Destroy(handle_);
  }

  std::string_view name() const override { return "cudnn"; }
  bool on_device() const override { return true; }

  Support supports(const Case& c, const TargetInfo& t) const override {
    if (!t.cuda) return Support::no("cudnn needs the cuda target");
    std::string why;
    if (cudnn_api(&why) == nullptr) return Support::no(fmt::format("cuDNN not found ({})", why));
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
    return catalog_mode_support(c, name());
  }

  // Builds (or takes from the cache) the execution plan, allocates its workspace through the
  // tracker and binds the case's buffers in a variant pack.
  void prepare(const Case&, const AttnParams& p, MemoryTracker& tracker) override {
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
    const std::string key = plan_key(p);
    auto it = plans_.find(key);
    if (it == plans_.end()) {
      Entry e;
      try {
        e.plan = build_sdpa_plan(*api_, handle_, p);
      } catch (const CudnnFailure& f) {
        e.refusal = f.what();
      }
      it = plans_.emplace(key, std::move(e)).first;
    }
    if (!it->second.plan) throw UnsupportedCase("cuDNN: " + it->second.refusal);
    const SdpaPlan& plan = *it->second.plan;
    if (plan.workspace_bytes > 0) {
      workspace_ =
          TrackedBuffer(tracker, static_cast<std::size_t>(plan.workspace_bytes), "cuDNN workspace");
    }
    pack_ = std::make_unique<SdpaVariantPack>(*api_, plan, p, workspace_.get());
    plan_ = &plan;
    stream_set_ = false;
  }

  void run(const AttnParams& p, void* stream) override {
    if (plan_ == nullptr || !pack_ || !pack_->matches(p)) {
      throw std::runtime_error("cudnn: run() without a prepare() for these buffers");
    }
    if (!stream_set_ || stream != stream_) {
      const cudnnStatus_t s = api_->SetStream(handle_, static_cast<cudaStream_t>(stream));
      if (s != CUDNN_STATUS_SUCCESS) {
        throw CudnnFailure("cudnnSetStream: " + cudnn_status_text(*api_, s));
      }
      stream_ = stream;
      stream_set_ = true;
    }
    const cudnnStatus_t s = api_->BackendExecute(handle_, plan_->plan.get(), pack_->get());
    if (s != CUDNN_STATUS_SUCCESS) {
      throw CudnnFailure("cudnnBackendExecute: " + cudnn_status_text(*api_, s));
    }
  }

  // The engine the prepared plan runs (see SdpaPlan::info).
  std::string info() const override { return plan_ != nullptr ? plan_->info : std::string(); }

  void release() override {
    pack_.reset();
    plan_ = nullptr;
    workspace_.reset();
  }

 private:
  struct Entry {
    std::unique_ptr<SdpaPlan> plan;
    std::string refusal;  // why cuDNN refused the shape, when plan is null
  };
  const CudnnApi* api_ = nullptr;
  cudnnHandle_t handle_ = nullptr;
  std::map<std::string, Entry> plans_;
  const SdpaPlan* plan_ = nullptr;
  std::unique_ptr<SdpaVariantPack> pack_;
  TrackedBuffer workspace_;
  void* stream_ = nullptr;
  bool stream_set_ = false;
};
#else
class CudnnBackend final : public Backend {
 public:
  std::string_view name() const override { return "cudnn"; }
  bool on_device() const override { return true; }
  Support supports(const Case&, const TargetInfo& t) const override {
    if (!t.cuda) return Support::no("cudnn needs the cuda target");
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
