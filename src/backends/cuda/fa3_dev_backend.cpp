// SPDX-License-Identifier: Apache-2.0
// fa3-dev: the fa3 forward with the tile/pipeline variant the case names (Case::variant), what
// `fa2bench tune --backend fa3` runs (docs/tuning.md). Variant 0 is the shipped dispatch
// (fa3_fwd) in every build with fa3; variants 1.. are the candidates of
// kernels/fa3/fa3_dev_tiles.h, compiled only with -DFA2BENCH_DEV_KERNELS=ON.
#include <memory>

#include "backends/cuda/dev_variant_backend.h"
#include "fa3/fa3_fwd.h"
#include "fa3/fa3_fwd_dev.h"

namespace fa2b {

std::unique_ptr<Backend> make_fa3_dev_cuda_backend() {
  return std::make_unique<DevVariantBackend>(
      DevVariantKernels{"fa3-dev", "fa3", fa3_fwd_supported, fa3_fwd, fa3_fwd_dev_variant_count,
                        fa3_fwd_dev_variant_name, fa3_fwd_dev_variant, fa3_device_rule});
}

}  // namespace fa2b
