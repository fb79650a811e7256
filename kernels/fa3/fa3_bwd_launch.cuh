// SPDX-License-Identifier: Apache-2.0
// Definition of run_fa3_bwd<T, D>; included only by the sm_90a instantiation units (inst/).
#pragma once

#include <cuda_runtime.h>

#include "fa2/fa2_bwd_passes.cuh"
#include "fa3/fa3_bwd_kernel.cuh"
#include "fa3/fa3_bwd_launch.h"
#include "fa3/fa3_bwd_traits.h"
#include "hopper/tensor_map.h"

namespace fa2b {

// The kernel's parameter. The dQ map depends only on the accumulator's address and shape, the
// same for every sample of a case: it is kept (per instantiation and thread) and encoded again
// only when those change, so no host encoding sits inside a timed region.
template <typename Traits>
cudaError_t make_fa3_bwd_args(const AttnBwdParams& p, float* dq_accum, const float* d_sum,
                              Fa3BwdArgs* a) {
  a->p = p;
  a->d_sum = d_sum;
  struct Cached {
    bool valid = false;
    float* base = nullptr;
    int B = 0, H = 0, T = 0, D = 0;
    CUtensorMap map{};
  };
  thread_local Cached cache;
  const AttnParams& f = p.fwd;
  if (!cache.valid || cache.base != dq_accum || cache.B != f.B || cache.H != f.H ||
      cache.T != f.T_q || cache.D != f.D) {
    cache.valid = false;
    const cudaError_t err =
        sm90::encode_f32_accum_map(&cache.map, dq_accum, f.B, f.H, f.T_q, f.D, Traits::kBlockM);
    if (err != cudaSuccess) return err;
    cache = {true, dq_accum, f.B, f.H, f.T_q, f.D, cache.map};
  }
  a->dq_map = cache.map;
  return cudaSuccess;
}

template <typename Traits, typename T, bool kCausal>
cudaError_t launch_fa3_bwd_main(const AttnBwdParams& p, float* dq_accum, const float* d_sum,
                                cudaStream_t stream) {
  auto kernel = &fa3::fa3_bwd_kernel<Traits, T, kCausal>;
  static const cudaError_t attr_err =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Traits::kSmemBytes);
  if (attr_err != cudaSuccess) return attr_err;
  Fa3BwdArgs args;
  const cudaError_t map_err = make_fa3_bwd_args<Traits>(p, dq_accum, d_sum, &args);
  if (map_err != cudaSuccess) return map_err;
  const dim3 grid(static_cast<unsigned>((p.fwd.T_k + Traits::kBlockN - 1) / Traits::kBlockN),
                  static_cast<unsigned>(p.fwd.H_kv), static_cast<unsigned>(p.fwd.B));
  kernel<<<grid, Traits::kThreads, Traits::kSmemBytes, stream>>>(args);
  return cudaGetLastError();
}

template <typename T, int kHeadDim>
cudaError_t run_fa3_bwd(const AttnBwdParams& p, float* dq_accum, float* d_sum,
                        cudaStream_t stream) {
  using Traits = Fa3BwdTraits<kHeadDim>;
  return run_bwd_passes<T, kHeadDim>(p, dq_accum, d_sum, stream, [&] {
    return p.fwd.causal ? launch_fa3_bwd_main<Traits, T, true>(p, dq_accum, d_sum, stream)
                        : launch_fa3_bwd_main<Traits, T, false>(p, dq_accum, d_sum, stream);
  });
}

}  // namespace fa2b
