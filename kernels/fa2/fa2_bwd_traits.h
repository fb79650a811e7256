// SPDX-License-Identifier: Apache-2.0
// Tile shapes of the FA2 backward kernel, one set per head dim.
//
// A CTA owns kBlockN keys of one KV head and walks every query block of every query head of
// its group, kBlockM query rows at a time. Each of the three products of an iteration spreads
// its output over the kWarps warps in its own grid, a warp owning 16-row strips:
//   S = Q K^T and dP = dO V^T  [kBlockM x kBlockN]:  kSdPWarpsM x (kWarps / kSdPWarpsM)
//   dV += P^T dO, dK += dS^T Q [kBlockN x D]:        kKVWarpsN  x (kWarps / kKVWarpsN)
//   dQ += dS K                 [kBlockM x D]:        kQWarpsM   x (kWarps / kQWarpsM)
// dK and dV stay in registers for the whole CTA, so their grid sets the register budget.
#pragma once

namespace fa2b {

template <int kHeadDim_, int kBlockM_, int kBlockN_, int kWarps_, int kSdPWarpsM_, int kKVWarpsN_,
          int kQWarpsM_, int kQStages_ = 2>
struct Fa2BwdTraitsBase {
  static constexpr int kHeadDim = kHeadDim_;
  static constexpr int kBlockM = kBlockM_;
  static constexpr int kBlockN = kBlockN_;
  static constexpr int kWarps = kWarps_;
  static constexpr int kThreads = kWarps * 32;
  static constexpr int kPitch = (kHeadDim + 63) / 64 * 64;  // rows of Q, dO, K, V (swizzle)
  static constexpr int kPitchN = (kBlockN + 63) / 64 * 64;  // rows of P and dS
  // Buffers of Q, dO, LSE and D_i: with two, the next query block loads during the whole of
  // this one's work (one barrier fewer per block); with one, only during the dQ product.
  static constexpr int kQStages = kQStages_;

  static constexpr int kSdPWarpsM = kSdPWarpsM_;
  static constexpr int kSdPWarpsN = kWarps / kSdPWarpsM;
  static constexpr int kSdPRows = kBlockM / kSdPWarpsM;  // per warp
  static constexpr int kSdPCols = kBlockN / kSdPWarpsN;
  static constexpr int kKVWarpsN = kKVWarpsN_;
  static constexpr int kKVWarpsD = kWarps / kKVWarpsN;
  static constexpr int kKVRows = kBlockN / kKVWarpsN;
  static constexpr int kKVCols = kHeadDim / kKVWarpsD;
  static constexpr int kQWarpsM = kQWarpsM_;
  static constexpr int kQWarpsD = kWarps / kQWarpsM;
  static constexpr int kQRows = kBlockM / kQWarpsM;
  static constexpr int kQCols = kHeadDim / kQWarpsD;

  // kQStages x (Q, dO) (kBlockM rows), K, V (kBlockN rows), P, dS (kBlockM x kBlockN), then
  // kQStages x (LSE, D_i).
  static constexpr int kSmemBytes =
      (2 * kQStages * kBlockM * kPitch + 2 * kBlockN * kPitch + 2 * kBlockM * kPitchN) * 2 +
      2 * kQStages * kBlockM * 4;

  static_assert(kHeadDim % 32 == 0, "head dim must be a multiple of 32");
  static_assert(kQStages == 1 || kQStages == 2, "one or two query-block buffers");
  static_assert(kBlockM % (kThreads / 8) == 0 && kBlockN % (kThreads / 8) == 0,
                "tiles load in passes of kThreads / 8 rows");
  static_assert(2 * kBlockM <= kThreads, "one thread stages each row's LSE, one its D_i");
  static_assert(kSdPRows % 16 == 0 && kSdPCols % 16 == 0, "S/dP warp tile");
  static_assert(kKVRows % 16 == 0 && kKVCols % 16 == 0, "dK/dV warp tile");
  static_assert(kQRows % 16 == 0 && kQCols % 16 == 0, "dQ warp tile");
};

// clang-format off
// One table per head dim (`scripts/gpu/ab.sh traits` rewrites a line). Measured on the H200
// (docs/performance.md, "fa2 backward"): 128-key blocks beat 64 by 12-35% at D <= 128 (half the dQ
// atomics per FLOP, wider warp tiles), and at D = 64 128-query blocks add 4-8%; at D > 128 the
// dK/dV accumulators of 128 keys no longer fit the register file, so the large head dims keep
// 64-key blocks, where D = 256 gains 2-5% from flash-attention's 2 x 4 dK/dV and dQ grids.
template <int kHeadDim> struct Fa2BwdTraits;
// clang-format on
// The largest head dim whose tuned tile also runs the varlen (and padded-head-dim) backward:
// above it that instantiation spills (ptxas, sm_90), so those cases take the compact tile.
constexpr int kFa2BwdVarlenTunedMaxHeadDim = 192;
// clang-format off
//                                                       D    Bm  Bn  warps SdP_M KV_N Q_M
template <> struct Fa2BwdTraits<32>  : Fa2BwdTraitsBase<32,  64, 128, 8,    2,    4,   4> {};
template <> struct Fa2BwdTraits<64>  : Fa2BwdTraitsBase<64,  128, 128, 8,   2,    4,   4> {};
template <> struct Fa2BwdTraits<96>  : Fa2BwdTraitsBase<96,  64, 128, 8,    2,    4,   4> {};
template <> struct Fa2BwdTraits<128> : Fa2BwdTraitsBase<128, 64, 128, 8,    2,    4,   4> {};
template <> struct Fa2BwdTraits<160> : Fa2BwdTraitsBase<160, 64, 64,  8,    4,    4,   4> {};
template <> struct Fa2BwdTraits<192> : Fa2BwdTraitsBase<192, 64, 64,  8,    4,    4,   4> {};
template <> struct Fa2BwdTraits<224> : Fa2BwdTraitsBase<224, 64, 64,  8,    4,    4,   4> {};
template <> struct Fa2BwdTraits<256> : Fa2BwdTraitsBase<256, 64, 64,  8,    4,    2,   2> {};

// The compact table, for devices whose shared memory per block the tiles above exceed
// (fa2_tile_choice.h): one query-block buffer and 64 x 64 blocks. Up to D = 128 it fits 99 KiB
// (sm_86, sm_89, sm_120), above it 163 KiB (sm_80, sm_87). Not tuned: chosen to fit, with the
// warp grids of the table above.
template <int kHeadDim> struct Fa2BwdCompactTraits;
//                                                              D    Bm  Bn  warps SdP_M KV_N Q_M stages
template <> struct Fa2BwdCompactTraits<32>  : Fa2BwdTraitsBase<32,  64, 64, 8,    4,    4,   4,  1> {};
template <> struct Fa2BwdCompactTraits<64>  : Fa2BwdTraitsBase<64,  64, 64, 8,    4,    4,   4,  1> {};
template <> struct Fa2BwdCompactTraits<96>  : Fa2BwdTraitsBase<96,  64, 64, 8,    4,    4,   4,  1> {};
template <> struct Fa2BwdCompactTraits<128> : Fa2BwdTraitsBase<128, 64, 64, 8,    4,    4,   4,  1> {};
template <> struct Fa2BwdCompactTraits<160> : Fa2BwdTraitsBase<160, 64, 64, 8,    4,    4,   4,  1> {};
template <> struct Fa2BwdCompactTraits<192> : Fa2BwdTraitsBase<192, 64, 64, 8,    4,    4,   4,  1> {};
template <> struct Fa2BwdCompactTraits<224> : Fa2BwdTraitsBase<224, 64, 64, 8,    4,    4,   4,  1> {};
template <> struct Fa2BwdCompactTraits<256> : Fa2BwdTraitsBase<256, 64, 64, 8,    4,    2,   2,  1> {};
// clang-format on

}  // namespace fa2b
