// SPDX-License-Identifier: Apache-2.0
// Definition of run_fa3_fwd<T, D>; included only by the sm_90a instantiation units (inst/).
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <type_traits>

#include "common/device_props.h"
#include "common/env_knobs.h"
#include "common/smem_opt_in.h"
#include "common/tile_order.h"
#include "fa3/fa3_fwd_args.h"
#include "fa3/fa3_fwd_kernel.cuh"
#include "fa3/fa3_fwd_launch.h"
#include "fa3/fa3_maps.h"
#include "fa3/fa3_traits.h"
#include "hopper/tensor_map.h"
#include "hopper/tensor_map_cache.h"

namespace fa2b {

// What the copy engine's maps of Q, K, V and O depend on: their addresses, shapes and strides.
struct Fa3MapKey {
  const void* q;
  const void* k;
  const void* v;
  const void* o;
  int B, H, H_kv, T_q, T_k, D;
  std::int64_t strides[12];

  static Fa3MapKey of(const AttnParams& p, const Fa3MapRows& m) {
    return {p.q,
            p.k,
            p.v,
            p.o,
            m.B,
            p.H,
            p.H_kv,
            m.T_q,
            m.T_k,
            p.D,
            {p.q_row_stride, p.q_head_stride, m.q_batch_stride, p.k_row_stride, p.k_head_stride,
             m.k_batch_stride, p.v_row_stride, p.v_head_stride, m.v_batch_stride, p.o_row_stride,
             p.o_head_stride, m.o_batch_stride}};
  }
  bool operator==(const Fa3MapKey& other) const {
    return q == other.q && k == other.k && v == other.v && o == other.o && B == other.B &&
           H == other.H && H_kv == other.H_kv && T_q == other.T_q && T_k == other.T_k &&
           D == other.D &&
           std::equal(std::begin(strides), std::end(strides), std::begin(other.strides));
  }
};

// The kernel's parameter, its maps kept between launches (tensor_map_cache.h); O's only for
// tiles whose copy engine stores it.
// snake_balanced: a persistent causal grid (its L2 sections, fa3_traits.h kFa3L2SectionPairs).
template <typename Traits, typename T>
cudaError_t make_fa3_fwd_args(const AttnParams& p, bool snake_balanced, Fa3FwdArgs* a) {
  constexpr bool kBf16 = std::is_same_v<T, __nv_bfloat16>;
  thread_local sm90::TensorMapCache<Fa3MapKey, 4> cache;
  const Fa3MapRows m = Fa3MapRows::of(p);
  const cudaError_t err = cache.get(Fa3MapKey::of(p, m), [&](CUtensorMap(&maps)[4]) {
    cudaError_t e = encode_fa3_qkv_maps(maps, p, m, kBf16, Traits::kBlockM, Traits::kBlockN);
    if (Traits::kTmaStore && e == cudaSuccess) {
      e = sm90::encode_attn_tensor_map(&maps[3], p.o, kBf16, m.B, p.H, m.T_q, p.D, p.o_row_stride,
                                       p.o_head_stride, m.o_batch_stride, 64);
    }
    return e;
  });
  if (err != cudaSuccess) return err;
  a->p = p;
  a->q = cache.maps[0];
  a->k = cache.maps[1];
  a->v = cache.maps[2];
  a->o = cache.maps[3];
  // FA2BENCH_FA3_L2_SECTION=N overrides the section size chosen below, for A/B runs (N >= B * H:
  // one section, the order without L2 sections).
  static const int forced_section = [] {
    const char* e = knob::value(knob::kFa3L2Section);
    return e != nullptr ? static_cast<int>(std::strtol(e, nullptr, 10)) : 0;
  }();
  const int num_bh = p.B * p.H;
  // Persistent causal grids: half of L2 for the K and V of the pairs in flight; Q, O and the
  // other half's lines come and go beside them.
  const int section = snake_balanced ? l2_section_pairs(device_l2_bytes() / 2, num_bh, p.T_k, p.D,
                                                        static_cast<int>(sizeof(T)), p.H, p.H_kv)
                                     : kFa3L2SectionPairs * std::max(1, p.H / std::max(1, p.H_kv));
  a->l2_section = std::min(forced_section > 0 ? forced_section : section, num_bh);
  return cudaSuccess;
}

// FA2BENCH_FA3_PERSISTENT=0 or 1 overrides the tile's kPersistent (fa3_traits.h), for A/B runs
// and for the tests, which check both launches of every tile; -1 when unset.
inline int fa3_persistent_override() {
  static const int v = [] {
    const char* e = knob::value(knob::kFa3Persistent);
    return e == nullptr || (e[0] != '0' && e[0] != '1') ? -1 : e[0] - '0';
  }();
  return v;
}

template <typename Traits, typename T, bool kCausal, bool kPersistent>
cudaError_t launch_fa3_fwd_as(const AttnParams& p, cudaStream_t stream) {
  auto kernel = &fa3::fa3_fwd_kernel<Traits, T, kCausal, kPersistent>;
  const cudaError_t attr_err =
      opt_in_dynamic_smem(reinterpret_cast<const void*>(kernel), Traits::kSmemBytes);
  if (attr_err != cudaSuccess) return attr_err;
  Fa3FwdArgs args;
  const cudaError_t map_err = make_fa3_fwd_args<Traits, T>(p, kCausal && kPersistent, &args);
  if (map_err != cudaSuccess) return map_err;
  const unsigned num_m = static_cast<unsigned>((p.T_q + Traits::kBlockM - 1) / Traits::kBlockM);
  unsigned ctas = num_m * static_cast<unsigned>(p.B) * static_cast<unsigned>(p.H);
  if (kPersistent) {
    ctas = std::min(ctas, static_cast<unsigned>(device_sm_count()));
    // Test knob: FA2BENCH_FA3_CTAS=N caps the persistent grid, so that small shapes walk
    // several tiles per CTA (stages and phases carried across tiles).
    static const unsigned cap = [] {
      const char* e = knob::value(knob::kFa3Ctas);
      return e != nullptr ? static_cast<unsigned>(std::strtoul(e, nullptr, 10)) : 0u;
    }();
    if (cap > 0) ctas = std::min(ctas, cap);
  }
  kernel<<<dim3(ctas), Traits::kThreads, Traits::kSmemBytes, stream>>>(args);
  return cudaGetLastError();
}

template <typename Traits, typename T, bool kCausal>
cudaError_t launch_fa3_fwd(const AttnParams& p, cudaStream_t stream) {
  // A packed varlen batch runs one CTA per tile: its tiles' work varies with the sequences'
  // lengths, which a persistent grid's static order balances worse than the hardware's
  // scheduling (0.81-0.84x cuDNN against 0.88x per tile, docs/performance.md, "fa3 forward").
  const int forced = fa3_persistent_override();
  const bool persistent =
      forced < 0 ? Traits::kPersistent && p.cu_seqlens_q == nullptr : forced == 1;
  return persistent ? launch_fa3_fwd_as<Traits, T, kCausal, true>(p, stream)
                    : launch_fa3_fwd_as<Traits, T, kCausal, false>(p, stream);
}

template <typename T, int kHeadDim, Fa3Keys kKeys>
cudaError_t run_fa3_fwd_keys(const AttnParams& p, cudaStream_t stream) {
  if (p.causal) return launch_fa3_fwd<Fa3FwdTraits<kHeadDim, true, kKeys>, T, true>(p, stream);
  return launch_fa3_fwd<Fa3FwdTraits<kHeadDim, false, kKeys>, T, false>(p, stream);
}

template <typename T, int kHeadDim>
cudaError_t run_fa3_fwd(const AttnParams& p, cudaStream_t stream) {
  switch (fa3_keys_of(p.T_k)) {
    case Fa3Keys::kShortest:
      return run_fa3_fwd_keys<T, kHeadDim, Fa3Keys::kShortest>(p, stream);
    case Fa3Keys::kShort:
      return run_fa3_fwd_keys<T, kHeadDim, Fa3Keys::kShort>(p, stream);
    case Fa3Keys::kLong:
      break;
  }
  return run_fa3_fwd_keys<T, kHeadDim, Fa3Keys::kLong>(p, stream);
}

}  // namespace fa2b
