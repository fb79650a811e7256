// SPDX-License-Identifier: Apache-2.0
// Definition of run_fa3_bwd<T, D>; included only by the sm_90a instantiation units (inst/).
#pragma once

#include <cuda_runtime.h>

#include "common/smem_opt_in.h"
#include "fa2/fa2_bwd_passes.cuh"
#include "fa3/fa3_bwd_kernel.cuh"
#include "fa3/fa3_bwd_launch.h"
#include "fa3/fa3_bwd_traits.h"
#include "hopper/tensor_map.h"
#include "hopper/tensor_map_cache.h"

namespace fa2b {

// What the dQ accumulator's map depends on: its address and shape (it is contiguous).
struct Fa3DqMapKey {
  const float* base;
  int B, H, T, D;
  bool operator==(const Fa3DqMapKey& o) const {
    return base == o.base && B == o.B && H == o.H && T == o.T && D == o.D;
  }
};

// The kernel's parameter, its dQ map kept between launches (tensor_map_cache.h).
template <typename Traits>
cudaError_t make_fa3_bwd_args(const AttnBwdParams& p, float* dq_accum, const float* d_sum,
                              Fa3BwdArgs* a) {
  const AttnParams& f = p.fwd;
  thread_local sm90::TensorMapCache<Fa3DqMapKey, 1> cache;
  const cudaError_t err = cache.get({dq_accum, f.B, f.H, f.T_q, f.D}, [&](CUtensorMap(&maps)[1]) {
    return sm90::encode_f32_accum_map(&maps[0], dq_accum, f.B, f.H, f.T_q, f.D, Traits::kBlockM);
  });
  if (err != cudaSuccess) return err;
  a->p = p;
  a->d_sum = d_sum;
  a->dq_map = cache.maps[0];
  return cudaSuccess;
}

template <typename Traits, typename T, bool kCausal>
cudaError_t launch_fa3_bwd_main(const AttnBwdParams& p, float* dq_accum, const float* d_sum,
                                cudaStream_t stream) {
  auto kernel = &fa3::fa3_bwd_kernel<Traits, T, kCausal>;
  const cudaError_t attr_err =
      opt_in_dynamic_smem(reinterpret_cast<const void*>(kernel), Traits::kSmemBytes);
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
