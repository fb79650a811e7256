// SPDX-License-Identifier: Apache-2.0
// fa2-dev: the fa2 forward with the tile/pipeline variant the case names (Case::variant), the
// dev-variant backend `fa2bench tune` runs (docs/tuning.md). Variant 0 is the shipped dispatch
// (fa2_fwd) in every build; variants 1.. are the candidates of
// kernels/fa2/inst/fa2_fwd_dev_variants.cu, compiled only with -DFA2BENCH_DEV_KERNELS=ON.
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "backends/cuda/cuda_backends.h"
#include "fa2/fa2_fwd.h"
#include "fa2/fa2_fwd_launch.h"
#include "runtime/cuda/cuda_check.h"

namespace fa2b {
namespace {

class Fa2DevCudaBackend final : public Backend {
 public:
  std::string_view name() const override { return "fa2-dev"; }
  bool on_device() const override { return true; }

  Support supports(const Case& c, const TargetInfo& t) const override {
    Support s = our_kernel_support(c, t, name(), fa2_fwd_supported);
    if (!s.ok) return s;
    s = catalog_mode_support(c, name());
    if (!s.ok) return s;
    if (c.variant == 0) return s;
    const int built = fa2_fwd_dev_variant_count(static_cast<int>(c.D));
    if (built == 0) {
      return Support::no(fmt::format(
          "fa2-dev variant {}: this build has no fa2 tuning variants (configure with "
          "-DFA2BENCH_DEV_KERNELS=ON; variant 0, the shipped kernel, runs in every build)",
          c.variant));
    }
    if (c.variant < 0 || c.variant >= built) {
      return Support::no(fmt::format("fa2-dev variant {} is out of range: D={} has variants 0..{}",
                                     c.variant, c.D, built - 1));
    }
    return s;
  }

  void prepare(const Case& c, const AttnParams&, MemoryTracker&) override {
    variant_ = c.variant;
    const char* n = fa2_fwd_dev_variant_name(static_cast<int>(c.D), c.variant);
    info_ =
        fmt::format("variant {}: {}", c.variant, n ? n : (c.variant == 0 ? "shipped" : "unknown"));
  }

  std::string info() const override { return info_; }

  void run(const AttnParams& p, void* stream) override {
    auto* s = static_cast<cudaStream_t>(stream);
    // fa2_fwd_dev_variant(p, 0) is fa2_fwd in a dev build; without one it is a stub.
    FA2B_CUDA_CHECK(variant_ == 0 ? fa2_fwd(p, s) : fa2_fwd_dev_variant(p, variant_, s));
  }

  int variant_count(std::int64_t D) const override {
    return std::max(1, fa2_fwd_dev_variant_count(static_cast<int>(D)));
  }

 private:
  int variant_ = 0;
  std::string info_;
};

}  // namespace

std::unique_ptr<Backend> make_fa2_dev_cuda_backend() {
  return std::make_unique<Fa2DevCudaBackend>();
}

}  // namespace fa2b
