// SPDX-License-Identifier: Apache-2.0
// Definition of run_fa2_bwd<T, D>; included only by the instantiation units under inst/.
#pragma once

#include <cuda_runtime.h>

#include <optional>

#include "common/attn_mask.h"
#include "common/smem_opt_in.h"
#include "common/varlen.h"
#include "fa2/fa2_bwd_kernel.cuh"
#include "fa2/fa2_bwd_launch.h"
#include "fa2/fa2_bwd_passes.cuh"
#include "fa2/fa2_bwd_traits.h"
#include "fa2/fa2_fwd_launch.h"
#include "fa2/fa2_tile_choice.h"

namespace fa2b {

// kMasked: causal and / or a sliding window (the bounds come from p.fwd); kPadD: p.fwd.D below
// the tile's head dim (fa2_bwd_kernel.cuh).
template <typename Traits, typename T, bool kMasked, bool kPadD = false, bool kVarlen = false>
cudaError_t launch_fa2_bwd_main(const AttnBwdParams& p, float* dq_accum, const float* d_sum,
                                cudaStream_t stream) {
  auto kernel = &fa2::fa2_bwd_kernel<Traits, T, kMasked, kPadD, kVarlen>;
  const cudaError_t attr_err =
      opt_in_dynamic_smem(reinterpret_cast<const void*>(kernel), Traits::kSmemBytes);
  if (attr_err != cudaSuccess) return attr_err;
  const dim3 grid(static_cast<unsigned>((p.fwd.T_k + Traits::kBlockN - 1) / Traits::kBlockN),
                  static_cast<unsigned>(p.fwd.H_kv), static_cast<unsigned>(p.fwd.B));
  kernel<<<grid, Traits::kThreads, Traits::kSmemBytes, stream>>>(p, dq_accum, d_sum,
                                                                 mask_reach(p.fwd));
  return cudaGetLastError();
}

// The varlen instantiation (kPadD: a head dim padded into this tile, dense batches too) in the
// tuned tile where it fits the device and keeps to the registers, else the compact one: at
// D > 192 the tuned tile's varlen kernel would spill (its sequence lengths and offsets live
// beside dK and dV, which fill the register file), so it is not compiled there.
template <typename T, int kHeadDim, bool kPadD>
cudaError_t run_fa2_bwd_varlen(const AttnBwdParams& p, float* dq_accum, float* d_sum,
                               cudaStream_t stream) {
  const std::optional<Fa2BwdTile> tile = choose_bwd_tile(kHeadDim, fa2_smem_limit());
  if (!tile) return cudaErrorInvalidConfiguration;
  return run_bwd_passes<T, kHeadDim>(p, dq_accum, d_sum, stream, [&] {
    if constexpr (kHeadDim <= kFa2BwdVarlenTunedMaxHeadDim) {
      if (*tile == Fa2BwdTile::kTuned) {
        return launch_fa2_bwd_main<Fa2BwdTraits<kHeadDim>, T, true, kPadD, true>(p, dq_accum, d_sum,
                                                                                 stream);
      }
    }
    return launch_fa2_bwd_main<Fa2BwdCompactTraits<kHeadDim>, T, true, kPadD, true>(p, dq_accum,
                                                                                    d_sum, stream);
  });
}

template <typename T, int kHeadDim>
cudaError_t run_fa2_bwd(const AttnBwdParams& p, float* dq_accum, float* d_sum,
                        cudaStream_t stream) {
  if (p.fwd.D != kHeadDim) return cudaErrorInvalidValue;  // run_fa2_bwd_padded's
  // The tuned tile where it fits the device's shared memory per block, else the compact one
  // (fa2_tile_choice.h); fa2_bwd_supported() refuses a case neither fits before it gets here.
  const std::optional<Fa2BwdTile> tile = choose_bwd_tile(kHeadDim, fa2_smem_limit());
  if (!tile) return cudaErrorInvalidConfiguration;
  // A variable-length batch: the masked kernel's varlen instantiation (the grid covers the
  // longest sequence; fa2_bwd_kernel.cuh), in the tile run_fa2_bwd_varlen picks.
  if (attn_varlen(p.fwd)) return run_fa2_bwd_varlen<T, kHeadDim, false>(p, dq_accum, d_sum, stream);
  auto launch = [&](auto traits) {
    using Traits = decltype(traits);
    return attn_masked(p.fwd) ? launch_fa2_bwd_main<Traits, T, true>(p, dq_accum, d_sum, stream)
                              : launch_fa2_bwd_main<Traits, T, false>(p, dq_accum, d_sum, stream);
  };
  return run_bwd_passes<T, kHeadDim>(p, dq_accum, d_sum, stream, [&] {
    return *tile == Fa2BwdTile::kTuned ? launch(Fa2BwdTraits<kHeadDim>{})
                                       : launch(Fa2BwdCompactTraits<kHeadDim>{});
  });
}

// A head dim padded into this tile (p.fwd.D < kHeadDim, fa2_padded_head_dim): the tile the
// listed head dim takes on this device, its loads zero-filling the padding columns. One
// instantiation per tile keeps the build lean: the masked varlen one, which runs a dense batch
// as a batch of one length (its masks then cut only what the case's mask cuts, and the key tail).
template <typename T, int kHeadDim>
cudaError_t run_fa2_bwd_padded(const AttnBwdParams& p, float* dq_accum, float* d_sum,
                               cudaStream_t stream) {
  if (p.fwd.D >= kHeadDim) return cudaErrorInvalidValue;
  return run_fa2_bwd_varlen<T, kHeadDim, true>(p, dq_accum, d_sum, stream);
}

}  // namespace fa2b
