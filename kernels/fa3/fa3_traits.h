// SPDX-License-Identifier: Apache-2.0
// Tile shapes of the Hopper (sm_90a) forward, one line per head dim, and the CTA's shared
// memory plan. A CTA is one producer warpgroup (the copy engine's issuer) and kConsumers
// consumer warpgroups, each owning 64 query rows (the wgmma M of one instruction). K and V
// tiles stream through kStages shared-memory stages in the 128-byte swizzled layout wgmma
// reads (wgmma_desc.cuh), each stage guarded by a full and an empty mbarrier.
#pragma once

#include "common/head_dims.h"

namespace fa2b {

// The head dims fa3 is compiled for (the dispatch, the support message and the tests read it).
using Fa3HeadDims = HeadDimList<64, 128, 256>;

constexpr bool fa3_head_dim_supported(int d) {
  return head_dim_listed(Fa3HeadDims{}, d);
}

// kTakeTurns: the consumers issue their GEMMs in turn (named barriers), so one's softmax runs
// while another's GEMMs do; without it they issue whenever their data is ready.
// kStagedEpilogue: O goes to global memory through the consumer's rows of the Q tile, as whole
// 16-byte chunks of consecutive columns, instead of 4-byte stores straight from registers.
// kPersistent: at most one CTA per multiprocessor, each walking query tiles with its barriers
// and stages carried from one to the next (fa3_fwd_kernel.cuh); else one CTA per tile.
// kQBuffers (persistent CTAs): with two, the next tile's Q lands while this tile's consumers
// still compute and stage their O in the other buffer; with one, it waits for their epilogue.
// kTmaStore (staged epilogues, dense batches): the copy engine stores each consumer's staged O,
// instead of its threads; packed varlen batches keep the threads' stores (a tile's rows may run
// into the next sequence's, which the copy engine would not clip).
template <int kD, int kBN, int kStages_, int kConsumers_, bool kTakeTurns_ = true,
          bool kStagedEpilogue_ = false, bool kPersistent_ = false, int kQBuffers_ = 1,
          bool kTmaStore_ = false>
struct Fa3FwdTile {
  static constexpr int kHeadDim = kD;
  static constexpr int kConsumers = kConsumers_;
  static constexpr bool kTakeTurns = kTakeTurns_;
  static constexpr bool kStagedEpilogue = kStagedEpilogue_;
  static constexpr bool kPersistent = kPersistent_;
  static constexpr int kQBuffers = kQBuffers_;
  static constexpr bool kTmaStore = kTmaStore_;
  static constexpr int kBlockM = 64 * kConsumers;
  static constexpr int kBlockN = kBN;
  static constexpr int kStages = kStages_;
  static constexpr int kThreads = 128 * (1 + kConsumers);
  // Registers per thread once the roles split (setmaxnreg): the producer issues copies only,
  // the consumers share the rest of the register file.
  static constexpr int kProducerRegs = kConsumers == 2 ? 24 : 32;
  static constexpr int kConsumerRegs = kConsumers == 2 ? 240 : 160;
  static constexpr int kQBytes = kBlockM * kD * 2;
  static constexpr int kKVBytes = kBN * kD * 2;  // one K or V tile
  // Byte offsets from the 1024-aligned base (the swizzle atom): the Q buffers, K stages, V
  // stages, then the barriers (per Q buffer Q full; per stage K full, K empty, V full, V empty;
  // per Q buffer Q empty).
  static constexpr int kKOffset = kQBuffers * kQBytes;
  static constexpr int kVOffset = kKOffset + kStages * kKVBytes;
  static constexpr int kBarOffset = kVOffset + kStages * kKVBytes;
  static constexpr int kBarriers = 2 * kQBuffers + 4 * kStages;
  static constexpr int kSmemBytes = kBarOffset + 8 * kBarriers + 1024;  // + alignment slack
  static_assert(kBN % 16 == 0 && kD % 64 == 0, "wgmma tile shape");
  static_assert(kQBuffers == 1 || (kQBuffers == 2 && kPersistent),
                "a second Q buffer serves a persistent CTA's next tile");
  static_assert(!kTmaStore || kStagedEpilogue, "the copy engine stores a staged O");
  static_assert(kSmemBytes <= 227 * 1024, "shared memory of one sm_90 block");
  static_assert(kProducerRegs * 128 + kConsumerRegs * 128 * kConsumers <= 65536, "register file");
};

// The shipped tile per head dim, mask and key length, from `fa2bench tune --backend fa3` on
// perf_fwd (docs/performance.md, "fa3 forward"). The staged epilogue wins wherever the
// epilogue is a visible share (every short-key tile); D = 64 runs three consumers to keep the
// tensor cores fed through its short GEMMs; non-causal D = 128 takes 176-key
// tiles on long keys (fewer softmax rounds per key; a causal CTA would mask more of them); D = 256
// takes 80-key tiles. Persistent CTAs with two Q buffers pay where a tile's prologue and epilogue
// weigh most: D = 64 (short GEMMs) at every length, D = 128 up to kFa3ShortKeys keys; D = 128 on
// long keys and D = 256 run one CTA per tile. The copy engine stores O wherever the epilogue
// weighs (the short-key tiles, and D = 64). The shortest keys take the short-key tile, except
// causal D = 256: there 64-key tiles with the copy-engine store mask fewer wasted columns on the
// few key tiles a causal row sees, which beyond 512 keys no longer outweighs the 80-key tile's
// fewer softmax rounds (docs/performance.md, "fa3 forward": the shortest-keys class).
enum class Fa3Keys { kShortest, kShort, kLong };
constexpr int kFa3ShortestKeys = 512;
constexpr int kFa3ShortKeys = 2048;
constexpr Fa3Keys fa3_keys_of(int T_k) {
  return T_k <= kFa3ShortestKeys ? Fa3Keys::kShortest
         : T_k <= kFa3ShortKeys  ? Fa3Keys::kShort
                                 : Fa3Keys::kLong;
}

// The (batch, head) pairs of one L2 section of the tile order (common/tile_order.h): few, so that
// the query tiles of a pair run at the same time and read its K and V from DRAM once. Persistent
// causal grids are the exception: their snake order balances a CTA's heavy tile of one wave
// against a light one of the next only when the weights fall monotonically over the waves, which
// small sections (a saw-tooth of weights) break; they take sections as large as half of L2 holds.
constexpr int kFa3L2SectionPairs = 2;

// Unlisted (D, mask, shortest keys): the short-key tile.
template <int kD, bool kCausal, Fa3Keys kKeys>
struct Fa3FwdChoice {
  static_assert(kKeys == Fa3Keys::kShortest, "every head dim lists its short and long tiles");
  using Tile = typename Fa3FwdChoice<kD, kCausal, Fa3Keys::kShort>::Tile;
};
// clang-format off
//                                                                  D    Bn   stages consumers turns staged epilogue, persistent, Q buffers, TMA store
template <bool kC, Fa3Keys kK> struct Fa3FwdChoice<64, kC, kK>                     { using Tile = Fa3FwdTile<64,  128, 2, 3, true, true, true, 2, true>; };
template <>                    struct Fa3FwdChoice<128, false, Fa3Keys::kShort>    { using Tile = Fa3FwdTile<128, 128, 2, 2, true, true, true, 2, true>; };
template <>                    struct Fa3FwdChoice<128, false, Fa3Keys::kLong>     { using Tile = Fa3FwdTile<128, 176, 2, 2, true, true>; };
template <Fa3Keys kK>          struct Fa3FwdChoice<128, true, kK>                  { static constexpr bool kS = kK != Fa3Keys::kLong;
                                                                                     using Tile = Fa3FwdTile<128, 128, 2, 2, true, true, kS, kS ? 2 : 1, kS>; };
template <bool kC>             struct Fa3FwdChoice<256, kC, Fa3Keys::kShort>       { using Tile = Fa3FwdTile<256, 80,  2, 2, true, true, false, 1, true>; };
template <bool kC>             struct Fa3FwdChoice<256, kC, Fa3Keys::kLong>        { using Tile = Fa3FwdTile<256, 80,  2, 2>; };
template <>                    struct Fa3FwdChoice<256, true, Fa3Keys::kShortest>  { using Tile = Fa3FwdTile<256, 64,  2, 2, true, true, false, 1, true>; };
// clang-format on

// An alias, so that choices naming the same tile share one kernel instantiation.
template <int kD, bool kCausal, Fa3Keys kKeys>
using Fa3FwdTraits = typename Fa3FwdChoice<kD, kCausal, kKeys>::Tile;

}  // namespace fa2b
