// SPDX-License-Identifier: Apache-2.0
// Head dims fa2 serves without a tile of their own: every multiple of 8 up to 256
// (flash-attention's rule) runs in the next listed tile of Fa2HeadDims (common/head_dims.h), its
// columns past D zero-filled on load and never stored (kPadD in fa2_fwd_kernel.cuh and
// fa2_bwd_kernel.cuh), forward and backward alike.
#pragma once

#include <cstdint>
#include <string>

#include "common/head_dims.h"
#include "fa2/fa2_tile_choice.h"

namespace fa2b {

constexpr int kFa2MaxHeadDim = 256;
constexpr int kFa2HeadDimMultiple = 8;  // 16-byte rows of fp16 / bf16

// The listed head dim whose tile serves d in the forward: d itself when listed, else the
// smallest listed one above it; 0 when no tile serves d.
template <int... kDims>
constexpr int padded_head_dim(HeadDimList<kDims...>, int d) {
  if (d <= 0 || d > kFa2MaxHeadDim || d % kFa2HeadDimMultiple != 0) return 0;
  int best = 0;
  for (int v : {kDims...}) {
    if (v >= d && (best == 0 || v < best)) best = v;
  }
  return best;
}

constexpr int fa2_padded_head_dim(int d) {
  return padded_head_dim(Fa2HeadDims{}, d);
}

// Head dims 16 below a listed tile that get a narrow copy of it (Fa2TraitsAtHeadDim: the same
// warps, rows and key tile, 16 columns of d fewer in every loop), so that they and the multiple
// of 8 below them compute at most 8 padding columns instead of 16 or 24. D = 80 and 112 are
// common model head dims; in the full tile they reached 0.815 and 0.825 of its TFLOP/s, under
// issue 20's 0.85 (docs/performance.md). Each entry adds forward kernels to its tile's padded unit.
using Fa2NarrowHeadDims = HeadDimList<80, 112>;

// The narrow tile serving d in the forward (d itself, or d + 8 padded), 0 when none does: the
// smallest narrow tile at or above d, if d's full tile is the one it narrows (listed tiles
// are 32 apart, so that also keeps d within 16 of it).
constexpr int fa2_narrow_head_dim(int d) {
  const int narrow = padded_head_dim(Fa2NarrowHeadDims{}, d);
  return narrow != 0 && fa2_padded_head_dim(d) == narrow + 16 ? narrow : 0;
}

// Whether the fa2 forward runs head dim d: listed, or padded into a listed tile.
constexpr bool fa2_fwd_head_dim_supported(int d) {
  return fa2_padded_head_dim(d) != 0;
}

// Empty when the padded forward of head dim D (not listed) fits `smem_limit` bytes per block
// (it runs the next tile's small-grid table entry) and, with `backward`, a backward tile of the
// next listed head dim does too; otherwise why not, naming the sizes.
inline std::string fa2_padded_smem_unsupported_reason(int D, bool masked, bool backward,
                                                      std::int64_t smem_limit) {
  const int tile_d = fa2_padded_head_dim(D);
  if (smem_limit <= 0 || tile_d == 0 || tile_d == D) return {};
  const std::string padded = " at D=" + std::to_string(D) +
                             " (padded into D=" + std::to_string(tile_d) + "'s tile) needs ";
  const std::int64_t need = fa2_fwd_tile_smem(tile_d, masked, Fa2FwdTile::kSmallGrid);
  if (need > smem_limit) {
    return "fa2 forward" + padded + fa2_kib_text(need) +
           " of shared memory per block; this device allows " + fa2_kib_text(smem_limit);
  }
  if (backward && !choose_bwd_tile(tile_d, smem_limit)) {
    return "fa2 backward" + padded + fa2_kib_text(fa2_bwd_tile_smem(tile_d, Fa2BwdTile::kCompact)) +
           " of shared memory per block (its compact tile); this device allows " +
           fa2_kib_text(smem_limit);
  }
  return {};
}

}  // namespace fa2b
