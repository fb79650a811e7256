// SPDX-License-Identifier: Apache-2.0
// Tile shapes of the Hopper (sm_90a) forward, one line per head dim, and the CTA's shared
// memory plan. A CTA is one producer warpgroup (the copy engine's issuer) and kConsumers
// consumer warpgroups, each owning 64 query rows (the wgmma M of one instruction). K and V
// tiles stream through kStages shared-memory stages in the 128-byte swizzled layout wgmma
// reads (wgmma_desc.cuh), each stage guarded by a full and an empty mbarrier.
#pragma once

#include "fa2/fa2_head_dims.h"

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
// kCtasPerSm: CTAs resident per SM, which share its registers and shared memory. With one
// consumer and two CTAs, each SM still runs two consumer warpgroups, but one CTA's prologue
// (Q load, pipeline fill) and epilogue overlap the other's GEMMs: on short sequences those
// are a large share of a CTA's time, and within one CTA nothing hides them.
template <int kD, int kBN, int kStages_, int kConsumers_, bool kTakeTurns_ = true,
          bool kStagedEpilogue_ = false, int kCtasPerSm_ = 1>
struct Fa3FwdTile {
  static constexpr int kHeadDim = kD;
  static constexpr int kConsumers = kConsumers_;
  // A lone consumer has no one to take turns with.
  static constexpr bool kTakeTurns = kTakeTurns_ && kConsumers > 1;
  static constexpr bool kStagedEpilogue = kStagedEpilogue_;
  static constexpr int kCtasPerSm = kCtasPerSm_;
  static constexpr int kBlockM = 64 * kConsumers;
  static constexpr int kBlockN = kBN;
  static constexpr int kStages = kStages_;
  static constexpr int kThreads = 128 * (1 + kConsumers);
  // Registers per thread once the roles split (setmaxnreg): the producer issues copies only,
  // the consumers share the rest of the register file.
  // setmaxnreg takes multiples of 8 up to 240 here; the CTA's share of the 64K-register file
  // is split between the producer and the consumers.
  static constexpr int kProducerRegs = kConsumers == 3 ? 32 : 24;
  static constexpr int kRegsPerCta = 65536 / kCtasPerSm;
  static constexpr int kConsumerRegsFit = (kRegsPerCta - kProducerRegs * 128) / (128 * kConsumers);
  static constexpr int kConsumerRegs = (kConsumerRegsFit < 240 ? kConsumerRegsFit : 240) / 8 * 8;
  static constexpr int kQBytes = kBlockM * kD * 2;
  static constexpr int kKVBytes = kBN * kD * 2;  // one K or V tile
  // Byte offsets from the 1024-aligned base (the swizzle atom): Q, K stages, V stages, then
  // the barriers (Q full; per stage K full, K empty, V full, V empty).
  static constexpr int kKOffset = kQBytes;
  static constexpr int kVOffset = kKOffset + kStages * kKVBytes;
  static constexpr int kBarOffset = kVOffset + kStages * kKVBytes;
  static constexpr int kBarriers = 1 + 4 * kStages;
  static constexpr int kSmemBytes = kBarOffset + 8 * kBarriers + 1024;  // + alignment slack
  static_assert(kBN % 16 == 0 && kD % 64 == 0, "wgmma tile shape");
  static_assert(kSmemBytes <= 227 * 1024, "shared memory of one sm_90 block");
  // 228 KiB per SM, of which the hardware keeps 1 KiB per resident CTA.
  static_assert(kCtasPerSm * (kSmemBytes + 1024) <= 228 * 1024, "shared memory of kCtasPerSm CTAs");
  static_assert(kProducerRegs * 128 + kConsumerRegs * 128 * kConsumers <= kRegsPerCta,
                "register file");
};

// Per head dim and mask. Non-causal D = 128 takes 176-key tiles (fewer softmax rounds per
// key; a causal CTA would mask more of them); D = 64 runs three consumers (192 query rows) to
// keep the tensor cores fed through its short GEMMs. results/NOTES.md "fa3" has the numbers.
template <int kD, bool kCausal>
struct Fa3FwdTraits;
// clang-format off
//                                                                  D    Bn   stages consumers
template <bool kCausal> struct Fa3FwdTraits<64, kCausal>  : Fa3FwdTile<64,  128, 2,     3> {};
template <> struct Fa3FwdTraits<128, false>               : Fa3FwdTile<128, 176, 2,     2> {};
template <> struct Fa3FwdTraits<128, true>                : Fa3FwdTile<128, 128, 2,     2> {};
template <bool kCausal> struct Fa3FwdTraits<256, kCausal> : Fa3FwdTile<256, 64,  2,     2> {};
// clang-format on

}  // namespace fa2b
