// SPDX-License-Identifier: Apache-2.0
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "fa2/fa2_fwd_combine.cuh"
#include "fa2/fa2_fwd_launch.h"
#include "fa2/static_switch.h"

namespace fa2b {

cudaError_t fa2_fwd_combine(const AttnParams& p, const Fa2SplitKv& split, cudaStream_t stream) {
  const std::int64_t rows = static_cast<std::int64_t>(p.B) * p.H * p.T_q;
  if (rows <= 0) return cudaSuccess;
  if (p.D > fa2::kCombineMaxHeadDim || p.D % 2 != 0) return cudaErrorInvalidValue;
  const dim3 grid(static_cast<unsigned>((rows + fa2::kCombineWarps - 1) / fa2::kCombineWarps));
  FA2_FP16_SWITCH(p.dtype == KernelDType::bf16, T, [&] {
    fa2::fa2_fwd_combine_kernel<T><<<grid, fa2::kCombineWarps * 32, 0, stream>>>(p, split);
  });
  return cudaGetLastError();
}

}  // namespace fa2b
