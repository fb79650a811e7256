// SPDX-License-Identifier: Apache-2.0
// Host side of the fa3 tuning variants: counts and names from the candidate lists, and the
// (dtype, head dim) dispatch into the units of inst/dev/, which exist only when the build has
// them (FA2BENCH_FA3_DEV: -DFA2BENCH_DEV_KERNELS=ON and sm_90a in the architecture list).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <string>

#include "common/static_switch.h"
#include "fa3/fa3_dev_tiles.h"
#include "fa3/fa3_fwd.h"
#include "fa3/fa3_fwd_dev.h"
#include "fa3/fa3_fwd_dev_launch.h"

namespace fa2b {

int fa3_fwd_dev_variant_count(int D) {
#if defined(FA2BENCH_FA3_DEV)
  if (!fa3_head_dim_supported(D)) return 0;
  return dispatch_head_dim(
      Fa3HeadDims{}, D, [](auto kD) { return 1 + Fa3DevTiles<decltype(kD)::value>::List::kCount; });
#else
  (void)D;
  return 0;
#endif
}

std::string fa3_fwd_dev_variant_name(int D, int v) {
  if (v == 0) return "shipped";
  if (v < 1 || v >= fa3_fwd_dev_variant_count(D)) return "";
  return dispatch_head_dim(Fa3HeadDims{}, D, [v](auto kD) {
    std::string name;
    with_fa3_tile_at(v - 1, typename Fa3DevTiles<decltype(kD)::value>::List{},
                     [&](auto tile) { name = fa3_tile_name<decltype(tile)>(); });
    return name;
  });
}

cudaError_t fa3_fwd_dev_variant(const AttnParams& p, int v, cudaStream_t stream) {
  std::string why;
  if (!fa3_fwd_supported(p, &why) || v < 1 || v >= fa3_fwd_dev_variant_count(p.D)) {
    return cudaErrorInvalidValue;
  }
#if defined(FA2BENCH_FA3_DEV)
  return FA2B_FP16_SWITCH(p.dtype == KernelDType::bf16, T, [&] {
    return dispatch_head_dim(Fa3HeadDims{}, p.D, [&](auto kD) {
      return run_fa3_fwd_dev<T, decltype(kD)::value>(p, v, stream);
    });
  });
#else
  (void)stream;
  return cudaErrorInvalidValue;
#endif
}

}  // namespace fa2b
