// SPDX-License-Identifier: Apache-2.0
// fa3: our Hopper-native attention (wgmma, sm_90a): forward and backward.
#include <fmt/format.h>

#include <string>

#include "backends/cuda/cuda_backends.h"
#include "backends/cuda/device_varlen.h"
#include "backends/cuda/head_dim_padding.h"
#include "fa3/fa3_bwd.h"
#include "fa3/fa3_fwd.h"
#include "runtime/cuda/cuda_check.h"

namespace fa2b {
namespace {

class Fa3CudaBackend final : public Backend {
 public:
  std::string_view name() const override { return "fa3"; }
  bool on_device() const override { return true; }

  Support supports(const Case& c, const TargetInfo& t) const override {
    // First: whatever else this build or device lacks, a window is never fa3's.
    Support s = no_window_support(
        c, name(), "the Hopper kernels (kernels/fa3) mask causally only; fa2 runs windows");
    if (!s.ok) return s;
    s = our_kernel_support(c, t, name(),
                           runs_backward(c.mode) ? fa3_bwd_supported : fa3_fwd_supported);
    if (!s.ok) return s;
    s = fa3_device_rule(t);
    if (!s.ok) return s;
    return catalog_mode_support(c, name());
  }

  // The forward keeps only O and LSE (and a packed batch's offsets); the backward's fp32 dQ
  // accumulator and its padded copies of the LSE and row sums are its whole workspace, tracked
  // like every buffer.
  void prepare(const Case& c, const AttnParams& p, MemoryTracker& tracker) override {
    varlen_.prepare(c, tracker);  // packed only (the catalog)
    if (runs_backward(c.mode)) {
      workspace_ =
          TrackedBuffer(tracker, fa3_bwd_workspace_bytes(p), "fa3 backward dQ accumulator");
    }
  }

  void run(const AttnParams& p, void* stream) override {
    FA2B_CUDA_CHECK(fa3_fwd(varlen_.apply(p), static_cast<cudaStream_t>(stream)));
  }

  void run_backward(const AttnBwdParams& p, void* stream) override {
    FA2B_CUDA_CHECK(fa3_bwd(p, workspace_.get(), static_cast<cudaStream_t>(stream)));
  }

  void release() override {
    workspace_.reset();
    varlen_.reset();
  }

 private:
  TrackedBuffer workspace_;
  DeviceVarlenArrays varlen_;
};

}  // namespace

// sm_90a code runs on compute capability 9.0 only (not on later architectures).
Support fa3_device_rule(const TargetInfo& t) {
  if (t.cc_major == 9 && t.cc_minor == 0) return Support::yes();
  return Support::no(fmt::format("fa3 runs on sm_90 GPUs (H100, H200) only: this device is sm_{}{}",
                                 t.cc_major, t.cc_minor));
}

// A head dim that is not a multiple of 8 runs padded to the next one (head_dim_padding.h)
// where that is one of fa3's (57-63 as 64, 121-127 as 128, 249-255 as 256).
std::unique_ptr<Backend> make_fa3_cuda_backend() {
  return with_head_dim_padding(std::make_unique<Fa3CudaBackend>());
}

}  // namespace fa2b
