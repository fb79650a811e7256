// SPDX-License-Identifier: Apache-2.0
// Tile shapes of the FA2 forward kernel, one set per (head dim, grid class).
//
// Each warp owns kMTiles 16-row slices of the query tile, so Br = 16 * kMTiles * kWarps. Two
// m-tiles per warp reuse every K/V fragment loaded by ldmatrix twice, which halves shared-memory
// traffic per mma (16 -> 32 flop per byte); the price is registers (O grows with D * kMTiles),
// so the large head dims go back to one m-tile per warp and more warps. Q stays in registers
// only when its fragments are cheap (small D); otherwise they are re-read from shared memory
// at every k-step of Q*K^T. kKVStages = 2 double-buffers K and V: the loads of tile n-1 are
// issued at the top of tile n and overlap all of its work, with one barrier per key tile
// instead of two, at the cost of another K and V tile of shared memory.
//
// kLazyRescale: the running row max only moves when a scaled score (log2 domain) exceeds it by
// more than kLazyRescaleLog2, checked once per key tile for the whole warp, so most key tiles
// skip rescaling O and l. A stale max only bounds P by 2^8 instead of 1, which fp16/bf16 P and
// the fp32 sums hold as precisely. kMinBlocks: CTAs per SM asked of the launch bounds (caps
// registers).
//
// The grid class (fa2_small_grid(), fa2_fwd.cu) picks between two tables: a
// grid of few 128-row query tiles (B * H * ceil(T_q / 128) < 4 * SMs) gets shorter query tiles
// (more CTAs to balance, fewer wasted rows on the causal diagonal) and, when causal, a global
// heaviest-first CTA order. The entries were chosen by `fa2bench tune` (docs/tuning.md).
#pragma once

namespace fa2b {

template <int kHeadDim_, int kWarps_, int kMTiles_, int kBlockN_, bool kQInRegs_,
          int kKVStages_ = 1, bool kLazyRescale_ = true, int kMinBlocks_ = 1, int kQRegSteps_ = -1>
struct Fa2TraitsBase {
  static constexpr int kHeadDim = kHeadDim_;
  static constexpr int kWarps = kWarps_;
  static constexpr int kThreads = kWarps * 32;
  static constexpr int kMTiles = kMTiles_;
  static constexpr int kBlockM = 16 * kMTiles * kWarps;
  static constexpr int kBlockN = kBlockN_;
  static constexpr bool kQInRegs = kQInRegs_;
  // Q*K^T k-steps (16 columns of d each) whose Q fragments stay in registers: all of them with
  // kQInRegs, unless kQRegSteps_ keeps only the first few (the rest re-read shared memory).
  static constexpr int kQRegSteps = !kQInRegs ? 0 : kQRegSteps_ < 0 ? kHeadDim_ / 16 : kQRegSteps_;
  static constexpr int kKVStages = kKVStages_;
  static constexpr bool kLazyRescale = kLazyRescale_;
  static constexpr float kLazyRescaleLog2 = 8.f;
  static constexpr int kMinBlocks = kMinBlocks_;
  static constexpr int kPitch = (kHeadDim + 63) / 64 * 64;  // see smem_swizzle.cuh
  // Q tile, then kKVStages K tiles and kKVStages V tiles.
  static constexpr int kSmemBytes = (kBlockM + 2 * kKVStages * kBlockN) * kPitch * 2;
  // Q·Kᵀ k-steps and P·V column pairs are 16 wide (one x4 ldmatrix each); the listed tiles are
  // multiples of 32, the narrow tiles of fa2_padded_head_dims.h 16 less than one.
  static_assert(kHeadDim % 16 == 0, "head dim must be a multiple of 16 (x4 ldmatrix on d)");
  static_assert(kBlockN % 16 == 0, "key tile must be a multiple of 16");
  static_assert(kKVStages == 1 || kKVStages == 2, "one or two K/V stages");
};

// The same tile at another head dim (the narrow tiles of fa2_padded_head_dims.h): warps, rows,
// key tile and pipeline as Traits, every loop over d at kHeadDim.
template <typename Traits, int kHeadDim>
struct Fa2TraitsAtHeadDim
    : Fa2TraitsBase<kHeadDim, Traits::kWarps, Traits::kMTiles, Traits::kBlockN, Traits::kQInRegs,
                    Traits::kKVStages, Traits::kLazyRescale, Traits::kMinBlocks,
                    Traits::kQRegSteps == Traits::kHeadDim / 16 ? -1 : Traits::kQRegSteps> {};

// CTA order of the grid: kHeadMajor keeps the m-blocks of one head adjacent (heaviest first
// within the head; best L2 reuse of K/V), kHeavyFirst orders every CTA of the grid by its
// causal work, heaviest first (best balance of a short causal grid).
enum class Fa2Order : int { kHeadMajor = 0, kHeavyFirst = 1 };

template <int kHeadDim, bool kSmallGrid>
struct Fa2Traits;

// Tables measured by `fa2bench tune` on the H200 (docs/tuning.md); D = 32, 96, 160, 192, 224
// were not tuned and follow their neighbours. The lazy rescale won 8-12% at D = 128 (2 m-tiles
// per warp; 1-2% with the 1 m-tile causal tile), tied at D = 64 and lost 2-6% at D = 256, so
// D = 256 and the untuned D = 160..224 next to it rescale at every tile.
// clang-format off
// Non-causal, grids of many query tiles.
//                                                        D  warps mtiles  Bc  Q in regs stages lazy
template <> struct Fa2Traits<32,  false> : Fa2TraitsBase<32,  4,    2,    64, true,     1,     true> {};
template <> struct Fa2Traits<64,  false> : Fa2TraitsBase<64,  4,    2,    64, true,     2,     true> {};
template <> struct Fa2Traits<96,  false> : Fa2TraitsBase<96,  4,    2,    32, false,    1,     true> {};
template <> struct Fa2Traits<128, false> : Fa2TraitsBase<128, 4,    2,    64, false,    1,     true> {};
template <> struct Fa2Traits<160, false> : Fa2TraitsBase<160, 8,    1,    64, false,    1,     false> {};
template <> struct Fa2Traits<192, false> : Fa2TraitsBase<192, 8,    1,    64, false,    1,     false> {};
template <> struct Fa2Traits<224, false> : Fa2TraitsBase<224, 8,    1,    64, false,    1,     false> {};
template <> struct Fa2Traits<256, false> : Fa2TraitsBase<256, 4,    1,    64, false,    1,     false> {};
// Grids of few query tiles. D <= 64 keeps 128-row tiles: the 4w x 1 64-row tile spills there.
template <> struct Fa2Traits<32,  true>  : Fa2TraitsBase<32,  4,    2,    64, true,     1,     true> {};
template <> struct Fa2Traits<64,  true>  : Fa2TraitsBase<64,  4,    2,    64, true,     2,     true> {};
template <> struct Fa2Traits<96,  true>  : Fa2TraitsBase<96,  4,    1,    64, true,     1,     true> {};
template <> struct Fa2Traits<128, true>  : Fa2TraitsBase<128, 4,    1,    64, true,     2,     true> {};
template <> struct Fa2Traits<160, true>  : Fa2TraitsBase<160, 4,    1,    64, false,    1,     false> {};
template <> struct Fa2Traits<192, true>  : Fa2TraitsBase<192, 4,    1,    64, false,    1,     false> {};
template <> struct Fa2Traits<224, true>  : Fa2TraitsBase<224, 4,    1,    64, false,    1,     false> {};
template <> struct Fa2Traits<256, true>  : Fa2TraitsBase<256, 4,    1,    64, false,    1,     false> {};
// clang-format on

// Causal grids use the same tiles except where tune found a better one. D = 128: the non-causal
// 4w x 2 128x64 tile, spill-free for causal since the mask re-reads the lane geometry (tune,
// session 4: +3..16% over the 4w x 1 64x64 Q-in-registers tile it replaced, with heavy-first).
template <int kHeadDim, bool kSmallGrid>
struct Fa2CausalTraits : Fa2Traits<kHeadDim, kSmallGrid> {};
template <>
struct Fa2CausalTraits<128, false> : Fa2TraitsBase<128, 4, 2, 64, false, 1, true> {};

// Largest K/V footprint (all batches and KV heads, K and V, bytes) for which the large-grid path
// uses the heavy-first order. Heavy-first makes the resident CTAs span every head, so all of K
// and V is read at once; past this the heads stop sharing L2 and head-major wins (measured at
// D=128, B*H=128 causal: heavy-first +5..15% at 128-256 MiB, a tie at 512 MiB, -11% at 1 GiB).
constexpr long long fa2_heavy_first_max_kv_bytes() {
  return 256ll << 20;
}

// CTA order of a causal grid: always heavy-first in the small-grid class; in the large class
// heavy-first from T_q >= this many rows (head-major below: heavy-first lost there, the L2
// reuse of head-major mattering more than the balance). Not measured at D other than 128/256.
template <int kHeadDim>
constexpr int fa2_heavy_first_min_tq() {
  return kHeadDim == 128 ? 0 : kHeadDim == 256 ? 2048 : 0x7fffffff;
}

}  // namespace fa2b
