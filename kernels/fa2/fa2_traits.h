// Tile shapes of the FA2 forward kernel, one set per head dim.
//
// Each warp owns kMTiles 16-row slices of the query tile, so Br = 16 * kMTiles * kWarps. Two
// m-tiles per warp reuse every K/V fragment loaded by ldmatrix twice, which halves shared-memory
// traffic per mma (16 -> 32 flop per byte); the price is registers (O grows with D * kMTiles),
// so the large head dims go back to one m-tile per warp and more warps. Q stays in registers
// only when its fragments are cheap (small D); otherwise they are re-read from shared memory
// at every k-step of Q*K^T.
#pragma once

namespace fa2b {

template <int kHeadDim_, int kWarps_, int kMTiles_, int kBlockN_, bool kQInRegs_>
struct Fa2TraitsBase {
  static constexpr int kHeadDim = kHeadDim_;
  static constexpr int kWarps = kWarps_;
  static constexpr int kThreads = kWarps * 32;
  static constexpr int kMTiles = kMTiles_;
  static constexpr int kBlockM = 16 * kMTiles * kWarps;
  static constexpr int kBlockN = kBlockN_;
  static constexpr bool kQInRegs = kQInRegs_;
  static constexpr int kPitch = (kHeadDim + 63) / 64 * 64;  // see smem_swizzle.cuh
  // Q tile, then one K tile and one V tile (K of the next tile streams in during softmax and
  // P*V, V of this tile during Q*K^T).
  static constexpr int kSmemBytes = (kBlockM + 2 * kBlockN) * kPitch * 2;
  static_assert(kHeadDim % 32 == 0, "head dim must be a multiple of 32 (x4 ldmatrix on d)");
  static_assert(kBlockN % 16 == 0, "key tile must be a multiple of 16");
};

template <int kHeadDim>
struct Fa2Traits;

// clang-format off
//                                                D  warps mtiles  Bc  Q in regs
template <> struct Fa2Traits<32>  : Fa2TraitsBase<32,  4,    2,    64, true> {};
template <> struct Fa2Traits<64>  : Fa2TraitsBase<64,  4,    2,    64, true> {};
template <> struct Fa2Traits<96>  : Fa2TraitsBase<96,  4,    2,    32, false> {};
template <> struct Fa2Traits<128> : Fa2TraitsBase<128, 4,    2,    32, false> {};
template <> struct Fa2Traits<160> : Fa2TraitsBase<160, 8,    1,    64, false> {};
template <> struct Fa2Traits<192> : Fa2TraitsBase<192, 8,    1,    64, false> {};
template <> struct Fa2Traits<224> : Fa2TraitsBase<224, 8,    1,    64, false> {};
template <> struct Fa2Traits<256> : Fa2TraitsBase<256, 4,    1,    64, false> {};
// clang-format on

}  // namespace fa2b
