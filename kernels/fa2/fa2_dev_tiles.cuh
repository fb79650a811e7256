// SPDX-License-Identifier: Apache-2.0
// Candidate tiles for tuning; included only by the units under inst/dev/. This table is the one
// list: inst/dev/gen_dev_units.py writes a unit per (dtype, tile) of it, and its --check (a CI
// test) fails when a unit is missing or stale or inst/fa2_fwd_dev_variants.cu names a tile not
// here.
#pragma once

#include "common/attn_mask.h"
#include "fa2/fa2_dev_tiles.h"
#include "fa2/fa2_fwd_launch.cuh"

namespace fa2b {
namespace dev {

template <int kD, int kTile>
struct Tile;

// clang-format off
// Tiles 0..5 (D=128), 0..3 (D=64), 0..2 (D=256) rescale O at every key tile (the fa2 v2
// kernels), as references for the lazy rescale that every shipped tile now uses.
//                                                   D  warps mtiles  Bc  Q in regs stages lazy CTAs/SM
template <> struct Tile<64, 0>  : Fa2TraitsBase<64,  4,    2,    64, true,  1,     false> {};
template <> struct Tile<64, 1>  : Fa2TraitsBase<64,  4,    2,    64, true,  2,     false> {};
template <> struct Tile<64, 2>  : Fa2TraitsBase<64,  4,    1,    64, true,  1,     false> {};
template <> struct Tile<64, 3>  : Fa2TraitsBase<64,  4,    1,    64, true,  2,     false> {};
template <> struct Tile<128, 0> : Fa2TraitsBase<128, 4,    2,    32, false, 1,     false> {};
template <> struct Tile<128, 1> : Fa2TraitsBase<128, 4,    2,    32, false, 2,     false> {};
template <> struct Tile<128, 2> : Fa2TraitsBase<128, 8,    1,    64, true,  1,     false> {};
template <> struct Tile<128, 3> : Fa2TraitsBase<128, 8,    1,    64, true,  2,     false> {};
template <> struct Tile<128, 4> : Fa2TraitsBase<128, 4,    1,    64, true,  1,     false> {};
template <> struct Tile<128, 5> : Fa2TraitsBase<128, 4,    1,    64, true,  2,     false> {};
template <> struct Tile<128, 6> : Fa2TraitsBase<128, 4,    1,    64, false, 2,     true,  3> {};
template <> struct Tile<128, 7> : Fa2TraitsBase<128, 4,    2,    64, false, 1,     true> {};
template <> struct Tile<128, 8> : Fa2TraitsBase<128, 4,    2,    64, false, 2,     true> {};
template <> struct Tile<256, 0> : Fa2TraitsBase<256, 4,    1,    64, false, 1,     false> {};
template <> struct Tile<256, 1> : Fa2TraitsBase<256, 4,    1,    64, false, 2,     false> {};
template <> struct Tile<256, 2> : Fa2TraitsBase<256, 4,    1,    32, false, 2,     false> {};
// Session 4 leads: 8 warps x 1 m-tile at D=128 with the lazy rescale, and 128-row tiles at
// D=256 (half the K/V traffic per query row of the 64-row tiles; 128 KB of shared memory, so
// one CTA of 8 warps per SM).
template <> struct Tile<128, 9> : Fa2TraitsBase<128, 8,    1,    64, true,  1,     true> {};
template <> struct Tile<256, 3> : Fa2TraitsBase<256, 8,    1,    64, false, 1,     false> {};
template <> struct Tile<256, 4> : Fa2TraitsBase<256, 8,    1,    64, false, 1,     true> {};
template <> struct Tile<256, 5> : Fa2TraitsBase<256, 8,    1,    32, false, 2,     false> {};
// Q in registers at D=256: the 64-register Q fragments remove the Q re-reads from shared memory
// (0.625 -> 0.5 ldmatrix.x4 per m16n8k16 at Bc = 32), which pays if shared-memory bandwidth is
// what bounds D=256 (one m-tile per warp: no K/V fragment reuse). Bc = 64 spills 24-40 bytes.
template <> struct Tile<256, 6> : Fa2TraitsBase<256, 4,    1,    32, true,  1,     false> {};
template <> struct Tile<256, 7> : Fa2TraitsBase<256, 8,    1,    32, true,  1,     false> {};
// The first 4 or 6 of the 16 Q k-steps in registers (16 / 24 registers, 0 spills, where all 16
// spill at Bc = 64): fewer Q re-reads with the 64-key tile's latency hiding kept.
template <> struct Tile<256, 8> : Fa2TraitsBase<256, 4,    1,    64, true,  1,     false, 1, 4> {};
template <> struct Tile<256, 9> : Fa2TraitsBase<256, 4,    1,    64, true,  1,     false, 1, 6> {};
// clang-format on

template <typename T, int kD, int kTile>
cudaError_t run_tile(const AttnParams& p, Fa2Order order, cudaStream_t stream) {
  return FA2B_BOOL_SWITCH(attn_masked(p), kMasked, [&] {
    return launch_fa2_fwd<Tile<kD, kTile>, T, kMasked>(p, stream, order);
  });
}

}  // namespace dev
}  // namespace fa2b
