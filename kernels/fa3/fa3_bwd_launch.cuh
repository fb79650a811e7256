// SPDX-License-Identifier: Apache-2.0
// Definition of run_fa3_bwd<T, D>; included only by the sm_90a instantiation units (inst/).
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <type_traits>

#include "common/smem_opt_in.h"
#include "fa3/fa3_bwd_kernel.cuh"
#include "fa3/fa3_bwd_launch.h"
#include "fa3/fa3_bwd_passes.cuh"
#include "fa3/fa3_bwd_split_kernel.cuh"
#include "fa3/fa3_bwd_traits.h"
#include "fa3/fa3_maps.h"
#include "hopper/tensor_map.h"
#include "hopper/tensor_map_cache.h"

namespace fa2b {

// What the copy engine's maps depend on: the addresses, shapes and strides of Q, K, V and dO,
// and the addresses of the dQ accumulator and of the statistics (contiguous, their shapes
// follow from Q's).
struct Fa3BwdMapKey {
  const void* q;
  const void* k;
  const void* v;
  const void* d_o;
  const float* dq_accum;
  const float* stats;
  int B, H, H_kv, T_q, T_k, D;
  std::int64_t strides[12];

  static Fa3BwdMapKey of(const AttnBwdParams& p, const float* dq_accum, const float* stats) {
    const AttnParams& f = p.fwd;
    return {f.q,
            f.k,
            f.v,
            p.d_o,
            dq_accum,
            stats,
            f.B,
            f.H,
            f.H_kv,
            f.T_q,
            f.T_k,
            f.D,
            {f.q_row_stride, f.q_head_stride, f.q_batch_stride, f.k_row_stride, f.k_head_stride,
             f.k_batch_stride, f.v_row_stride, f.v_head_stride, f.v_batch_stride, f.o_row_stride,
             f.o_head_stride, f.o_batch_stride}};
  }
  bool operator==(const Fa3BwdMapKey& o) const {
    return q == o.q && k == o.k && v == o.v && d_o == o.d_o && dq_accum == o.dq_accum &&
           stats == o.stats && B == o.B && H == o.H && H_kv == o.H_kv && T_q == o.T_q &&
           T_k == o.T_k && D == o.D &&
           std::equal(std::begin(strides), std::end(strides), std::begin(o.strides));
  }
};

// The kernel's parameter, its maps kept between launches (tensor_map_cache.h). dO has O's
// strides.
template <typename Traits, typename T>
cudaError_t make_fa3_bwd_args(const AttnBwdParams& p, float* dq_accum, const float* stats,
                              Fa3BwdArgs* a) {
  constexpr bool kBf16 = std::is_same_v<T, __nv_bfloat16>;
  const AttnParams& f = p.fwd;
  thread_local sm90::TensorMapCache<Fa3BwdMapKey, 6> cache;
  const cudaError_t err =
      cache.get(Fa3BwdMapKey::of(p, dq_accum, stats), [&](CUtensorMap(&maps)[6]) {
        // Dense batches only (fa3_bwd_supported): the maps span the case's own rows.
        cudaError_t e = encode_fa3_qkv_maps(maps, f, Fa3MapRows::of(f), kBf16, Traits::kBlockM,
                                            Traits::kBlockN);
        if (e == cudaSuccess) {
          e = sm90::encode_attn_tensor_map(&maps[3], p.d_o, kBf16, f.B, f.H, f.T_q, f.D,
                                           f.o_row_stride, f.o_head_stride, f.o_batch_stride,
                                           Traits::kBlockM);
        }
        if (e == cudaSuccess) {
          e = sm90::encode_f32_accum_map(&maps[4], dq_accum, f.B, f.H, f.T_q, f.D, Traits::kBlockM);
        }
        if (e == cudaSuccess) {
          e = sm90::encode_f32_rows_map(&maps[5], stats, 2 * static_cast<std::int64_t>(f.B) * f.H,
                                        fa3_bwd_stat_pitch(f.T_q), Traits::kBlockM);
        }
        return e;
      });
  if (err != cudaSuccess) return err;
  a->p = p;
  a->q_map = cache.maps[0];
  a->k_map = cache.maps[1];
  a->v_map = cache.maps[2];
  a->do_map = cache.maps[3];
  a->dq_map = cache.maps[4];
  a->stat_map = cache.maps[5];
  return cudaSuccess;
}

// The main kernel of a tile plan: the key-split kernel up to D = 128, the head-dim split above.
template <typename Traits, typename T, bool kCausal>
constexpr auto fa3_bwd_main_kernel() {
  if constexpr (Traits::kSplitD) {
    return &fa3::fa3_bwd_split_kernel<Traits, T, kCausal>;
  } else {
    return &fa3::fa3_bwd_kernel<Traits, T, kCausal>;
  }
}

template <typename Traits, typename T, bool kCausal>
cudaError_t launch_fa3_bwd_main(const AttnBwdParams& p, float* dq_accum, const float* stats,
                                cudaStream_t stream) {
  auto kernel = fa3_bwd_main_kernel<Traits, T, kCausal>();
  const cudaError_t attr_err =
      opt_in_dynamic_smem(reinterpret_cast<const void*>(kernel), Traits::kSmemBytes);
  if (attr_err != cudaSuccess) return attr_err;
  Fa3BwdArgs args;
  const cudaError_t map_err = make_fa3_bwd_args<Traits, T>(p, dq_accum, stats, &args);
  if (map_err != cudaSuccess) return map_err;
  const dim3 grid(static_cast<unsigned>((p.fwd.T_k + Traits::kBlockN - 1) / Traits::kBlockN),
                  static_cast<unsigned>(p.fwd.H_kv), static_cast<unsigned>(p.fwd.B));
  kernel<<<grid, Traits::kThreads, Traits::kSmemBytes, stream>>>(args);
  return cudaGetLastError();
}

// `stats`: the padded LSE·log2(e) rows, then the padded D_i rows (fa3_bwd.h's workspace).
template <typename T, int kHeadDim>
cudaError_t run_fa3_bwd(const AttnBwdParams& p, float* dq_accum, float* stats,
                        cudaStream_t stream) {
  using Traits = Fa3BwdTraitsFor<kHeadDim>;
  float* lse_log2 = stats;
  float* d_sum =
      stats + static_cast<std::size_t>(p.fwd.B) * p.fwd.H * fa3_bwd_stat_pitch(p.fwd.T_q);
  return run_fa3_bwd_passes<T, kHeadDim>(p, dq_accum, lse_log2, d_sum, stream, [&] {
    return p.fwd.causal ? launch_fa3_bwd_main<Traits, T, true>(p, dq_accum, stats, stream)
                        : launch_fa3_bwd_main<Traits, T, false>(p, dq_accum, stats, stream);
  });
}

}  // namespace fa2b
