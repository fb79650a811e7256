// SPDX-License-Identifier: Apache-2.0
// fa3-dev: the fa3 forward with the tile/pipeline variant the case names (Case::variant), what
// `fa2bench tune --backend fa3` runs (docs/tuning.md). Variant 0 is the shipped dispatch
// (fa3_fwd) in every build with fa3; variants 1.. are the candidates of
// kernels/fa3/fa3_dev_tiles.h, compiled only with -DFA2BENCH_DEV_KERNELS=ON.
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "backends/cuda/cuda_backends.h"
#include "fa3/fa3_fwd.h"
#include "fa3/fa3_fwd_dev.h"
#include "runtime/cuda/cuda_check.h"

namespace fa2b {
namespace {

class Fa3DevCudaBackend final : public Backend {
 public:
  std::string_view name() const override { return "fa3-dev"; }
  bool on_device() const override { return true; }

  Support supports(const Case& c, const TargetInfo& t) const override {
    Support s = our_kernel_support(c, t, name(), fa3_fwd_supported);
    if (!s.ok) return s;
    if (t.cc_major != 9 || t.cc_minor != 0) {
      return Support::no(
          fmt::format("fa3-dev runs on sm_90 GPUs (H100, H200) only: this device is sm_{}{}",
                      t.cc_major, t.cc_minor));
    }
    s = catalog_mode_support(c, name());
    if (!s.ok) return s;
    if (c.variant == 0) return s;
    const int built = fa3_fwd_dev_variant_count(static_cast<int>(c.D));
    if (built == 0) {
      return Support::no(fmt::format(
          "fa3-dev variant {}: this build has no fa3 tuning variants (configure with "
          "-DFA2BENCH_DEV_KERNELS=ON and 90 in the CUDA architectures; variant 0, the shipped "
          "kernel, runs in every build with fa3)",
          c.variant));
    }
    if (c.variant < 0 || c.variant >= built) {
      return Support::no(fmt::format("fa3-dev variant {} is out of range: D={} has variants 0..{}",
                                     c.variant, c.D, built - 1));
    }
    return s;
  }

  void prepare(const Case& c, const AttnParams&, MemoryTracker&) override {
    variant_ = c.variant;
    const std::string n = fa3_fwd_dev_variant_name(static_cast<int>(c.D), c.variant);
    info_ = fmt::format("variant {}: {}", c.variant, n.empty() ? "unknown" : n);
  }

  std::string info() const override { return info_; }

  void run(const AttnParams& p, void* stream) override {
    auto* s = static_cast<cudaStream_t>(stream);
    FA2B_CUDA_CHECK(variant_ == 0 ? fa3_fwd(p, s) : fa3_fwd_dev_variant(p, variant_, s));
  }

  int variant_count(std::int64_t D) const override {
    return std::max(1, fa3_fwd_dev_variant_count(static_cast<int>(D)));
  }

 private:
  int variant_ = 0;
  std::string info_;
};

}  // namespace

std::unique_ptr<Backend> make_fa3_dev_cuda_backend() {
  return std::make_unique<Fa3DevCudaBackend>();
}

}  // namespace fa2b
