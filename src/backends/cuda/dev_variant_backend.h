// SPDX-License-Identifier: Apache-2.0
// The shape of a dev-variant backend (fa2-dev, fa3-dev: what `fa2bench tune` runs): the
// shipped forward as variant 0, the tuning candidates of a build with -DFA2BENCH_DEV_KERNELS=ON
// as 1.., the variant's name in backend_info. The kernel family supplies its entry points.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>

#include "backends/cuda/cuda_backends.h"
#include "runtime/cuda/cuda_check.h"

namespace fa2b {

struct DevVariantKernels {
  const char* backend;  // "fa2-dev"
  const char* family;   // "fa2", in messages
  bool (*supported)(const AttnParams&, std::string*);
  cudaError_t (*shipped)(const AttnParams&, cudaStream_t);
  int (*count)(int D);  // variants in this build, 0 when it has none
  std::string (*name)(int D, int variant);
  cudaError_t (*run)(const AttnParams&, int variant, cudaStream_t);
  // Beyond the shared gate: a device rule of the family (e.g. sm_90 only); null when none.
  Support (*device_rule)(const TargetInfo&);
};

class DevVariantBackend final : public Backend {
 public:
  explicit DevVariantBackend(const DevVariantKernels& k) : k_(k) {}
  std::string_view name() const override { return k_.backend; }
  bool on_device() const override { return true; }

  Support supports(const Case& c, const TargetInfo& t) const override {
    Support s = our_kernel_support(c, t, name(), k_.supported);
    if (!s.ok) return s;
    if (k_.device_rule != nullptr) {
      s = k_.device_rule(t);
      if (!s.ok) return s;
    }
    s = catalog_mode_support(c, name());
    if (!s.ok || c.variant == 0) return s;
    const int built = k_.count(static_cast<int>(c.D));
    if (built == 0) {
      return Support::no(fmt::format(
          "{} variant {}: this build has no {} tuning variants (configure with "
          "-DFA2BENCH_DEV_KERNELS=ON; variant 0, the shipped kernel, runs in every build)",
          k_.backend, c.variant, k_.family));
    }
    if (c.variant < 0 || c.variant >= built) {
      return Support::no(fmt::format("{} variant {} is out of range: D={} has variants 0..{}",
                                     k_.backend, c.variant, c.D, built - 1));
    }
    return s;
  }

  void prepare(const Case& c, const AttnParams&, MemoryTracker&) override {
    variant_ = c.variant;
    const std::string n = c.variant == 0 ? "shipped" : k_.name(static_cast<int>(c.D), c.variant);
    info_ = fmt::format("variant {}: {}", c.variant, n.empty() ? "unknown" : n);
  }

  std::string info() const override { return info_; }

  void run(const AttnParams& p, void* stream) override {
    auto* s = static_cast<cudaStream_t>(stream);
    FA2B_CUDA_CHECK(variant_ == 0 ? k_.shipped(p, s) : k_.run(p, variant_, s));
  }

  int variant_count(std::int64_t D) const override {
    return std::max(1, k_.count(static_cast<int>(D)));
  }

 private:
  DevVariantKernels k_;
  int variant_ = 0;
  std::string info_;
};

}  // namespace fa2b
