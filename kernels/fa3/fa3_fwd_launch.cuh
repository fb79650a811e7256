// SPDX-License-Identifier: Apache-2.0
// Definition of run_fa3_fwd<T, D>; included only by the sm_90a instantiation units (inst/).
#pragma once

#include <cuda_runtime.h>

#include "fa3/fa3_fwd_kernel.cuh"
#include "fa3/fa3_fwd_launch.h"
#include "fa3/fa3_traits.h"

namespace fa2b {

template <typename Traits, typename T, bool kCausal>
cudaError_t launch_fa3_fwd(const AttnParams& p, cudaStream_t stream) {
  auto kernel = &fa3::fa3_fwd_kernel<Traits, T, kCausal>;
  // Above 48 KB of dynamic shared memory needs an opt-in; once per instantiation is enough.
  static const cudaError_t attr_err =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Traits::kSmemBytes);
  if (attr_err != cudaSuccess) return attr_err;
  const unsigned num_m = static_cast<unsigned>((p.T_q + Traits::kBlockM - 1) / Traits::kBlockM);
  const dim3 grid(num_m * static_cast<unsigned>(p.B) * static_cast<unsigned>(p.H));
  kernel<<<grid, Traits::kThreads, Traits::kSmemBytes, stream>>>(p);
  return cudaGetLastError();
}

template <typename T, int kHeadDim>
cudaError_t run_fa3_fwd(const AttnParams& p, cudaStream_t stream) {
  using Traits = Fa3FwdTraits<kHeadDim>;
  if (p.causal) return launch_fa3_fwd<Traits, T, true>(p, stream);
  return launch_fa3_fwd<Traits, T, false>(p, stream);
}

}  // namespace fa2b
