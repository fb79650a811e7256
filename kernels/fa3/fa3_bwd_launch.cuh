// Definition of run_fa3_bwd<T, D>; included only by the sm_90a instantiation units (inst/).
#pragma once

#include <cuda_runtime.h>

#include "fa3/fa3_bwd_kernel.cuh"
#include "fa3/fa3_bwd_launch.h"
#include "fa3/fa3_bwd_traits.h"

namespace fa2b {

template <typename Traits, typename T, bool kCausal>
cudaError_t launch_fa3_bwd_main(const AttnBwdParams& p, float* dq_accum, const float* d_sum,
                                cudaStream_t stream) {
  auto kernel = &fa3::fa3_bwd_kernel<Traits, T, kCausal>;
  static const cudaError_t attr_err =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Traits::kSmemBytes);
  if (attr_err != cudaSuccess) return attr_err;
  const dim3 grid(static_cast<unsigned>((p.fwd.T_k + Traits::kBlockN - 1) / Traits::kBlockN),
                  static_cast<unsigned>(p.fwd.H_kv), static_cast<unsigned>(p.fwd.B));
  kernel<<<grid, Traits::kThreads, Traits::kSmemBytes, stream>>>(p, dq_accum, d_sum);
  return cudaGetLastError();
}

template <typename T, int kHeadDim>
cudaError_t run_fa3_bwd(const AttnBwdParams& p, float* dq_accum, float* d_sum,
                        cudaStream_t stream) {
  using Traits = Fa3BwdTraits<kHeadDim>;
  const long long rows = static_cast<long long>(p.fwd.B) * p.fwd.H * p.fwd.T_q;
  fa2::fa2_bwd_preprocess<T, kHeadDim>
      <<<static_cast<unsigned>((rows + 7) / 8), 256, 0, stream>>>(p, dq_accum, d_sum);
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return err;
  err = p.fwd.causal ? launch_fa3_bwd_main<Traits, T, true>(p, dq_accum, d_sum, stream)
                     : launch_fa3_bwd_main<Traits, T, false>(p, dq_accum, d_sum, stream);
  if (err != cudaSuccess) return err;
  const long long chunks = rows * (kHeadDim / 8);
  fa2::fa2_bwd_convert_dq<T, kHeadDim>
      <<<static_cast<unsigned>((chunks + 255) / 256), 256, 0, stream>>>(p, dq_accum);
  return cudaGetLastError();
}

}  // namespace fa2b
