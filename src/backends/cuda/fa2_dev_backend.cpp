// SPDX-License-Identifier: Apache-2.0
// fa2-dev: the fa2 forward with the tile/pipeline variant the case names (Case::variant), the
// dev-variant backend `fa2bench tune` runs (docs/tuning.md). Variant 0 is the shipped dispatch
// (fa2_fwd) in every build; variants 1.. are the candidates of
// kernels/fa2/inst/fa2_fwd_dev_variants.cu, compiled only with -DFA2BENCH_DEV_KERNELS=ON.
#include <memory>
#include <string>

#include "backends/cuda/dev_variant_backend.h"
#include "fa2/fa2_fwd.h"
#include "fa2/fa2_fwd_launch.h"

namespace fa2b {
namespace {

std::string fa2_variant_name(int D, int variant) {
  const char* n = fa2_fwd_dev_variant_name(D, variant);
  return n != nullptr ? n : "";
}

}  // namespace

std::unique_ptr<Backend> make_fa2_dev_cuda_backend() {
  return std::make_unique<DevVariantBackend>(
      DevVariantKernels{"fa2-dev", "fa2", fa2_fwd_supported, fa2_fwd, fa2_fwd_dev_variant_count,
                        fa2_variant_name, fa2_fwd_dev_variant, nullptr});
}

}  // namespace fa2b
