// SPDX-License-Identifier: Apache-2.0
// Tile shapes of the Hopper (sm_90a) backward. One CTA per (key block, KV head, batch): a
// producer warpgroup (one warp issues the copy engine's loads) and two consumer warpgroups.
// Up to D = 128 (Fa3BwdTraits) each consumer owns 64 keys: the wgmma M of Sᵀ = K·Qᵀ,
// dPᵀ = V·dOᵀ, dV += Pᵀ·dO and dK += dSᵀ·Q, whose accumulators (dK, dV: 64 × D per warpgroup)
// stay in registers across the query blocks; dQ = dS·K is split over the warpgroups by columns
// (D/2 each). At D = 256 those accumulators alone would take every register, so
// Fa3BwdSplitDTraits splits the head dim instead: both consumers share 64 keys and each owns
// half of dK's and dV's columns.
#pragma once

#include <type_traits>

#include "core/host_device.h"
#include "fa3/fa3_traits.h"

namespace fa2b {

// The head dims the fa3 backward is compiled for.
using Fa3BwdHeadDims = HeadDimList<64, 128, 256>;

constexpr bool fa3_bwd_head_dim_supported(int d) {
  return head_dim_listed(Fa3BwdHeadDims{}, d);
}

// Queries per block of the backward (one wgmma N of Sᵀ and dPᵀ), every head dim.
constexpr int kFa3BwdBlockM = 64;

// The row pitch of the padded LSE and D_i copies the preprocessing pass writes (T_q rounded up
// to whole query blocks): every query block's 64 values lie inside its row (zeros past T_q), and
// rows start on the 16-byte multiples the copy engine's map needs, for any T_q.
FA2B_HD constexpr int fa3_bwd_stat_pitch(int T_q) {
  return (T_q + kFa3BwdBlockM - 1) / kFa3BwdBlockM * kFa3BwdBlockM;
}

// Q, dO, LSE and D_i of a query block stream through kStages stages, all loaded by the copy
// engine, each handed to the consumers by a full mbarrier and back to the producer by an empty
// one. dSᵀ is double-buffered so that one warpgroup may write the next block's while the other
// still reads this one's for dQ. Each warpgroup leaves its dQ slice in shared memory (fp32,
// double-buffered) and one of its threads adds it to the global accumulator through the copy
// engine.
template <int kD>
struct Fa3BwdTraits {
  static constexpr bool kSplitD = false;
  static constexpr int kHeadDim = kD;
  static constexpr int kBlockM = kFa3BwdBlockM;
  static constexpr int kBlockN = 128;  // keys per CTA
  static constexpr int kStages = 2;
  static constexpr int kConsumers = 2;
  static constexpr int kThreads = 128 * (1 + kConsumers);
  // Registers per thread once the roles split (setmaxnreg), as the forward's two-consumer tiles.
  static constexpr int kProducerRegs = 24;
  static constexpr int kConsumerRegs = 240;
  static constexpr int kKVBytes = kBlockN * kD * 2;             // K or V
  static constexpr int kQBytes = kBlockM * kD * 2;              // one stage of Q or dO
  static constexpr int kDSBytes = kBlockN * kBlockM * 2;        // one dSᵀ buffer
  static constexpr int kStatBytes = kStages * 2 * kBlockM * 4;  // LSE and D_i per stage
  // dQ of one warpgroup (64 query rows x D/2 fp32 columns), in boxes of 32 columns (the copy
  // engine's 128-byte swizzle span); two per warpgroup (double buffer).
  static constexpr int kDQCols = kD / 2;
  static constexpr int kDQBoxBytes = kBlockM * 32 * 4;
  static constexpr int kDQSliceBytes = kBlockM * kDQCols * 4;
  static constexpr int kDQBytes = 2 * kConsumers * kDQSliceBytes;
  // Offsets from the 1024-aligned base: K, V, Q stages, dO stages, dSᵀ buffers, dQ buffers,
  // LSE/D_i stages, then the barriers (K/V full; per stage full and empty).
  static constexpr int kQOffset = 2 * kKVBytes;
  static constexpr int kDOOffset = kQOffset + kStages * kQBytes;
  static constexpr int kDSOffset = kDOOffset + kStages * kQBytes;
  static constexpr int kDQOffset = kDSOffset + 2 * kDSBytes;
  static constexpr int kStatOffset = kDQOffset + kDQBytes;
  static constexpr int kBarOffset = kStatOffset + kStatBytes;
  static constexpr int kBarriers = 1 + 2 * kStages;
  // A stage is free once lane 0 of every consumer warp has arrived.
  static constexpr int kEmptyArrivals = 4 * kConsumers;
  static constexpr int kSmemBytes = kBarOffset + 8 * kBarriers + 1024;  // + alignment slack
  static_assert(kBlockM == 64, "dSᵀ is one 64-column block of the swizzled layout");
  static_assert(kDQCols % 32 == 0, "dQ slices in whole 32-column boxes");
  static_assert(kDQOffset % 1024 == 0 && kDQSliceBytes % 1024 == 0, "swizzle atoms aligned");
  static_assert(kSmemBytes <= 227 * 1024, "shared memory of one sm_90 block");
  static_assert(kProducerRegs * 128 + kConsumerRegs * 128 * kConsumers <= 65536, "register file");
};

// The split-head-dim backward (fa3_bwd_split_kernel.cuh), for D = 256. Both consumers see the
// same 64 keys and 64 queries a block. Consumer 0 computes Sᵀ and Pᵀ, consumer 1 dPᵀ and dSᵀ;
// Pᵀ goes to consumer 1 through shared memory (fp32, as each thread holds it), dSᵀ to consumer
// 0 through its swizzled tile (which dQ's wgmma reads too). Each consumer then accumulates its
// half of dV's and dK's columns (64 × D/2 each, in registers) and computes its half of dQ's
// columns in 64-column pieces. K, V and two stages of Q and dO take 192 KB at D = 256, leaving
// no room for a dQ buffer, but once a consumer's dK and dV products are done it no longer reads
// its half of the stage's Q and dO (16 KB each, the size of one fp32 piece): piece 0 goes there
// in Q's place, piece 1 in dO's, and a writer thread of the producer warpgroup adds each to the
// fp32 accumulator by the copy engine (a tensor reduce-add: whole lines, against the scattered
// vector atomics that saturated L2), then frees the stage once the copy engine has read it.
template <int kD>
struct Fa3BwdSplitDTraits {
  static constexpr bool kSplitD = true;
  static constexpr int kHeadDim = kD;
  static constexpr int kBlockM = kFa3BwdBlockM;
  static constexpr int kBlockN = 64;  // keys per CTA, shared by both consumers
  static constexpr int kStages = 2;
  static constexpr int kConsumers = 2;
  static constexpr int kThreads = 128 * (1 + kConsumers);
  static constexpr int kProducerRegs = 24;
  static constexpr int kConsumerRegs = 240;
  static constexpr int kHalf = kD / 2;  // dK, dV and dQ columns per consumer
  static constexpr int kKVBytes = kBlockN * kD * 2;
  static constexpr int kQBytes = kBlockM * kD * 2;
  static constexpr int kDSBytes = kBlockN * kBlockM * 2;        // the dSᵀ tile
  static constexpr int kPBytes = kBlockN * kBlockM * 4;         // Pᵀ handed over, fp32
  static constexpr int kStatBytes = kStages * 2 * kBlockM * 4;  // LSE and D_i per stage
  static constexpr int kQOffset = 2 * kKVBytes;
  static constexpr int kDOOffset = kQOffset + kStages * kQBytes;
  static constexpr int kDSOffset = kDOOffset + kStages * kQBytes;
  static constexpr int kPOffset = kDSOffset + kDSBytes;
  static constexpr int kStatOffset = kPOffset + kPBytes;
  static constexpr int kBarOffset = kStatOffset + kStatBytes;
  // dQ's pieces per consumer (64 columns each), each with a full barrier per stage: the
  // consumer's 128 threads arrive once it is in shared memory, the writer waits.
  static constexpr int kDQPieces = kHalf / 64;
  static constexpr int kDQBoxBytes = kBlockM * 32 * 4;  // 32 fp32 columns, the swizzle span
  static constexpr int kBarriers = 1 + 2 * kStages + kStages * kConsumers * kDQPieces;
  // The writer frees a stage, after the consumers' last pieces and the copy engine's reads.
  static constexpr int kEmptyArrivals = 1;
  static constexpr int kSmemBytes = kBarOffset + 8 * kBarriers + 1024;  // + alignment slack
  static_assert(kBlockM == 64 && kBlockN == 64, "Sᵀ, Pᵀ and dSᵀ are one m64n64 tile");
  static_assert(kDQPieces == 2, "piece 0 takes the consumer's half of Q, piece 1 of dO");
  static_assert(kBlockM * 64 * 4 == kBlockM * kHalf * 2, "an fp32 piece fills a half tile");
  static_assert(kHalf % 64 == 0, "each consumer's columns are whole 64-column blocks");
  static_assert(kDSOffset % 1024 == 0, "swizzle atoms aligned");
  static_assert(kSmemBytes <= 227 * 1024, "shared memory of one sm_90 block");
  static_assert(kProducerRegs * 128 + kConsumerRegs * 128 * kConsumers <= 65536, "register file");
};

// The backward's tile plan for head dim kD.
template <int kD>
using Fa3BwdTraitsFor = std::conditional_t<(kD > 128), Fa3BwdSplitDTraits<kD>, Fa3BwdTraits<kD>>;

}  // namespace fa2b
