// SPDX-License-Identifier: Apache-2.0
#include <string>

#include "backends/cuda/cuda_backends.h"
#include "backends/cuda/device_varlen.h"
#include "backends/cuda/head_dim_padding.h"
#include "naive/naive_attn.h"
#include "naive/naive_bwd.h"
#include "runtime/cuda/cuda_check.h"

namespace fa2b {
namespace {

class NaiveCudaBackend final : public Backend {
 public:
  std::string_view name() const override { return "naive"; }
  bool on_device() const override { return true; }

  Support supports(const Case& c, const TargetInfo& t) const override {
    if (!runs_backward(c.mode)) return our_kernel_support(c, t, name(), naive_supported);
    // The backward's rules include the forward's.
    return our_kernel_support(c, t, name(), [](const AttnParams& p, std::string* why) {
      AttnBwdParams b;
      b.fwd = p;
      return naive_bwd_supported(b, why);
    });
  }

  // S and P are the point of this backend: they are its workspace, tracked like any buffer. In
  // the training modes the forward's P is what the backward reads, and the backward adds dP and
  // dS: the O(T^2) memory FlashAttention avoids.
  void prepare(const Case& c, const AttnParams& p, MemoryTracker& tracker) override {
    workspace_ = TrackedBuffer(tracker, naive_workspace_bytes(p), "naive S and P");
    varlen_.prepare(c, tracker);  // padded only (the catalog): the lengths masking the keys
    if (runs_backward(c.mode)) {
      bwd_workspace_ = TrackedBuffer(tracker, naive_bwd_workspace_bytes(p), "naive dP and dS");
    }
  }

  void run(const AttnParams& p, void* stream) override {
    FA2B_CUDA_CHECK(
        naive_attention(varlen_.apply(p), workspace_.get(), static_cast<cudaStream_t>(stream)));
  }

  void run_backward(const AttnBwdParams& p, void* stream) override {
    const void* saved_p = workspace_.as<char>() + naive_saved_p_offset(p.fwd);
    FA2B_CUDA_CHECK(
        naive_attention_bwd(p, saved_p, bwd_workspace_.get(), static_cast<cudaStream_t>(stream)));
  }

  void release() override {
    workspace_.reset();
    bwd_workspace_.reset();
    varlen_.reset();
  }

 private:
  TrackedBuffer workspace_, bwd_workspace_;
  DeviceVarlenArrays varlen_;
};

}  // namespace

// A head dim that is not a multiple of 8 runs padded to the next one (head_dim_padding.h).
std::unique_ptr<Backend> make_naive_cuda_backend() {
  return with_head_dim_padding(std::make_unique<NaiveCudaBackend>());
}

}  // namespace fa2b
