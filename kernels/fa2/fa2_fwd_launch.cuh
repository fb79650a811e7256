// SPDX-License-Identifier: Apache-2.0
// Definitions of run_fa2_fwd<T, D> and run_fa2_fwd_decode<T, D>; included only by the instantiation
// units under inst/.
#pragma once

#include <cuda_runtime.h>

#include <optional>

#include "common/attn_mask.h"
#include "common/smem_opt_in.h"
#include "common/static_switch.h"
#include "common/varlen.h"
#include "fa2/fa2_fwd_kernel.cuh"
#include "fa2/fa2_fwd_launch.h"
#include "fa2/fa2_padded_head_dims.h"
#include "fa2/fa2_tile_choice.h"
#include "fa2/fa2_traits.h"

namespace fa2b {

// kMasked: causal and / or a sliding window (the bounds come from p); kPadD: p.D padded into
// the tile's wider head dim; kVarlen: a variable-length batch. See fa2_fwd_kernel.cuh.
template <typename Traits, typename T, bool kMasked, bool kPadD = false, bool kVarlen = false>
cudaError_t launch_fa2_fwd(const AttnParams& p, cudaStream_t stream, Fa2Order order) {
  auto kernel = &fa2::fa2_fwd_kernel<Traits, T, kMasked, false, false, kPadD, kVarlen>;
  const cudaError_t attr_err =
      opt_in_dynamic_smem(reinterpret_cast<const void*>(kernel), Traits::kSmemBytes);
  if (attr_err != cudaSuccess) return attr_err;
  const unsigned num_m = static_cast<unsigned>((p.T_q + Traits::kBlockM - 1) / Traits::kBlockM);
  const dim3 grid(num_m * static_cast<unsigned>(p.B) * static_cast<unsigned>(p.H));
  kernel<<<grid, Traits::kThreads, Traits::kSmemBytes, stream>>>(
      p, kMasked ? order : Fa2Order::kHeadMajor, Fa2SplitKv{});
  return cudaGetLastError();
}

// The decode launches (fa2_split_kv.h): kSplit runs n_splits copies of the grid (split-major,
// see the kernel) and then the combine; kPacked gives a KV group's query heads one CTA, whose
// G * T_q rows must fit one query tile.
template <typename Traits, typename T, bool kMasked, bool kSplit, bool kPacked>
cudaError_t launch_fa2_fwd_decode(const AttnParams& p, const Fa2SplitKv& split,
                                  cudaStream_t stream) {
  auto kernel = &fa2::fa2_fwd_kernel<Traits, T, kMasked, kSplit, kPacked>;
  const cudaError_t attr_err =
      opt_in_dynamic_smem(reinterpret_cast<const void*>(kernel), Traits::kSmemBytes);
  if (attr_err != cudaSuccess) return attr_err;
  const long long rows = kPacked ? static_cast<long long>(p.H / p.H_kv) * p.T_q : p.T_q;
  if (kPacked && rows > Traits::kBlockM) return cudaErrorInvalidConfiguration;
  const unsigned num_m = static_cast<unsigned>((rows + Traits::kBlockM - 1) / Traits::kBlockM);
  const unsigned heads = static_cast<unsigned>(kPacked ? p.H_kv : p.H);
  const unsigned splits = kSplit ? static_cast<unsigned>(split.n_splits) : 1u;
  const dim3 grid(num_m * static_cast<unsigned>(p.B) * heads * splits);
  kernel<<<grid, Traits::kThreads, Traits::kSmemBytes, stream>>>(p, Fa2Order::kHeadMajor, split);
  const cudaError_t err = cudaGetLastError();
  if (!kSplit || err != cudaSuccess) return err;
  return fa2_fwd_combine(p, split, stream);
}

template <typename Traits, typename T, bool kMasked>
cudaError_t launch_fa2_fwd_decode_plan(const AttnParams& p, const Fa2SplitKv& split,
                                       cudaStream_t stream) {
  if (split.pack_gqa) {
    return split.n_splits > 1
               ? launch_fa2_fwd_decode<Traits, T, kMasked, true, true>(p, split, stream)
               : launch_fa2_fwd_decode<Traits, T, kMasked, false, true>(p, split, stream);
  }
  return launch_fa2_fwd_decode<Traits, T, kMasked, true, false>(p, split, stream);
}

// The masked launches (causal, windows, variable-length batches) use the causal tile table,
// the others the plain one.
template <typename T, int kHeadDim, bool kMasked, bool kVarlen = false>
cudaError_t launch_fa2_fwd_tile(const AttnParams& p, cudaStream_t stream, Fa2FwdTile tile,
                                Fa2Order order) {
  static_assert(kMasked || !kVarlen, "variable-length batches take the masked kernel");
  if constexpr (kMasked) {
    return tile == Fa2FwdTile::kSmallGrid
               ? launch_fa2_fwd<Fa2CausalTraits<kHeadDim, true>, T, true, false, kVarlen>(p, stream,
                                                                                          order)
               : launch_fa2_fwd<Fa2CausalTraits<kHeadDim, false>, T, true, false, kVarlen>(
                     p, stream, order);
  } else {
    return tile == Fa2FwdTile::kSmallGrid
               ? launch_fa2_fwd<Fa2Traits<kHeadDim, true>, T, false>(p, stream, order)
               : launch_fa2_fwd<Fa2Traits<kHeadDim, false>, T, false>(p, stream, order);
  }
}

template <typename T, int kHeadDim>
cudaError_t run_fa2_fwd(const AttnParams& p, cudaStream_t stream) {
  const bool small = fa2_small_grid(p);
  // The grid class's tile, or the other class's where the device's shared memory per block is
  // too small for it (fa2_tile_choice.h); a tile that fits nowhere is never launched.
  // A variable-length batch runs the masked kernel's kVarlen instantiation (fa2_fwd_kernel.cuh).
  const bool varlen = attn_varlen(p);
  const bool masked = attn_masked(p) || varlen;
  const std::optional<Fa2FwdTile> tile = choose_fwd_tile(kHeadDim, masked, small, fa2_smem_limit());
  if (!tile) return cudaErrorInvalidConfiguration;
  // Causal and windowed launches share the masked instantiation and its CTA orders (under a
  // window the m-blocks cost about the same, so the order matters less there).
  if (masked) {
    const auto launch_masked = [&](Fa2Order order) {
      return varlen ? launch_fa2_fwd_tile<T, kHeadDim, true, true>(p, stream, *tile, order)
                    : launch_fa2_fwd_tile<T, kHeadDim, true>(p, stream, *tile, order);
    };
    if (small) return launch_masked(fa2_causal_order(Fa2Order::kHeavyFirst));
    // Heavy-first spreads the resident CTAs over every head, so it only pays while all heads'
    // K/V stay within reach of L2 (fa2_traits.h); beyond, head-major keeps each head's K/V hot.
    const long long kv_bytes =
        2ll * p.B * p.H_kv * p.T_k * kHeadDim * static_cast<long long>(sizeof(T));
    const Fa2Order order =
        kv_bytes <= fa2_heavy_first_max_kv_bytes() && p.T_q >= fa2_heavy_first_min_tq<kHeadDim>()
            ? Fa2Order::kHeavyFirst
            : Fa2Order::kHeadMajor;
    return launch_masked(fa2_causal_order(order));
  }
  return launch_fa2_fwd_tile<T, kHeadDim, false>(p, stream, *tile, Fa2Order::kHeadMajor);
}

// A head dim padded into this tile (p.D < kHeadDim, fa2_padded_head_dim): the small-grid tile of
// either mask on any grid (one instantiation per mask keeps the build lean), its CTA order as
// the small-grid launches above, or head-major on large grids.
template <typename T, int kHeadDim>
cudaError_t run_fa2_fwd_padded(const AttnParams& p, cudaStream_t stream) {
  const bool varlen = attn_varlen(p);
  const bool masked = attn_masked(p) || varlen;  // as run_fa2_fwd
  if (p.D >= kHeadDim ||
      choose_fwd_tile(kHeadDim, masked, true, fa2_smem_limit()) != Fa2FwdTile::kSmallGrid) {
    return cudaErrorInvalidConfiguration;
  }
  const Fa2Order causal_order =
      fa2_causal_order(fa2_small_grid(p) ? Fa2Order::kHeavyFirst : Fa2Order::kHeadMajor);
  // A narrow tile 16 columns below this one (fa2_padded_head_dims.h), dense batches only: a
  // varlen batch at these head dims keeps the full tile, one kernel fewer per tile.
  constexpr int kNarrow = kHeadDim - 16;
  if constexpr (head_dim_listed(Fa2NarrowHeadDims{}, kNarrow)) {
    if (!varlen && fa2_narrow_head_dim(p.D) == kNarrow) {
      using Causal = Fa2TraitsAtHeadDim<Fa2CausalTraits<kHeadDim, true>, kNarrow>;
      using Full = Fa2TraitsAtHeadDim<Fa2Traits<kHeadDim, true>, kNarrow>;
      return masked ? launch_fa2_fwd<Causal, T, true, true>(p, stream, causal_order)
                    : launch_fa2_fwd<Full, T, false, true>(p, stream, Fa2Order::kHeadMajor);
    }
  }
  if (masked) {
    using Causal = Fa2CausalTraits<kHeadDim, true>;
    return varlen ? launch_fa2_fwd<Causal, T, true, true, true>(p, stream, causal_order)
                  : launch_fa2_fwd<Causal, T, true, true>(p, stream, causal_order);
  }
  return launch_fa2_fwd<Fa2Traits<kHeadDim, true>, T, false, true>(p, stream, Fa2Order::kHeadMajor);
}

// Decode launches take the small-grid tile: the plan splits grids that do not fill the GPU and
// packs few rows (a split count forced for tests runs the same tile on any grid).
template <typename T, int kHeadDim>
cudaError_t run_fa2_fwd_decode(const AttnParams& p, const Fa2SplitKv& split, cudaStream_t stream) {
  const bool masked = attn_masked(p);
  if (choose_fwd_tile(kHeadDim, masked, true, fa2_smem_limit()) != Fa2FwdTile::kSmallGrid) {
    return cudaErrorInvalidConfiguration;
  }
  return masked ? launch_fa2_fwd_decode_plan<Fa2CausalTraits<kHeadDim, true>, T, true>(p, split,
                                                                                       stream)
                : launch_fa2_fwd_decode_plan<Fa2Traits<kHeadDim, true>, T, false>(p, split, stream);
}

}  // namespace fa2b
