// SPDX-License-Identifier: Apache-2.0
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "common/static_switch.h"
#include "fa2/fa2_fwd_combine.cuh"
#include "fa2/fa2_fwd_launch.h"

namespace fa2b {

cudaError_t fa2_fwd_combine(const AttnParams& p, const Fa2SplitKv& split, cudaStream_t stream) {
  const std::int64_t rows = static_cast<std::int64_t>(p.B) * p.H * p.T_q;
  if (rows <= 0) return cudaSuccess;
  if (p.D > fa2::kCombineMaxHeadDim || p.D % 2 != 0 || split.n_splits > kFa2MaxSplits) {
    return cudaErrorInvalidValue;
  }
  const dim3 grid(static_cast<unsigned>((rows + fa2::kCombineWarps - 1) / fa2::kCombineWarps));
  return FA2B_FP16_SWITCH(p.dtype == KernelDType::bf16, T, [&] {
    auto kernel = &fa2::fa2_fwd_combine_kernel<T>;
    // A programmatic dependent launch of the split grid before it (common/grid_dependency.cuh):
    // its launch and prologue overlap that grid's last CTAs instead of following them.
    cudaLaunchAttribute attr[1] = {};
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = grid;
    config.blockDim = dim3(fa2::kCombineWarps * 32);
    config.stream = stream;
    config.attrs = attr;
    config.numAttrs = 1;
    if (cudaLaunchKernelEx(&config, kernel, p, split) == cudaSuccess) return cudaSuccess;
    // A device or driver without it (before sm_90): an ordinary launch after the split grid.
    (void)cudaGetLastError();
    kernel<<<grid, fa2::kCombineWarps * 32, 0, stream>>>(p, split);
    return cudaGetLastError();
  });
}

}  // namespace fa2b
