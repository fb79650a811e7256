// SPDX-License-Identifier: Apache-2.0
// Hopper attention backward for D = 256: the head dim split over the consumer warpgroups
// (Fa3BwdSplitDTraits). The producer, the CTA's place and the statistics are those of the
// D <= 128 kernel (fa3_bwd_kernel.cuh); what differs is who computes what of a query block:
//   consumer 0: Sᵀ = K·Qᵀ, Pᵀ = exp(Sᵀ·scale − LSE), Pᵀ to consumer 1 (shared memory, fp32);
//   consumer 1: dPᵀ = V·dOᵀ, dSᵀ = Pᵀ ∘ (dPᵀ − D_i), dSᵀ to its swizzled tile;
//   consumer c: dV[:, half c] += Pᵀ·dO[:, half c], dK[:, half c] += dSᵀ·Q[:, half c] (Pᵀ and dSᵀ
//   as register A operands; consumer 0 reads dSᵀ's fragments back from the tile), then
//   dQ[:, half c] = dS·K[:, half c] (dS read MN-major from the tile) in two 64-column pieces,
//   each left in the stage's shared memory the consumer no longer reads;
//   the writer (producer warpgroup, warp 1): each piece to the fp32 accumulator by the copy
//   engine's reduce-add, then the stage back to the producer once the copy engine has read it.
// Sᵀ and dPᵀ run at the same time on the two consumers, then each does half of the other three
// products, so the tensor cores see the same work from both. Two named barriers order the
// hand-overs: Pᵀ written → consumer 1 reads it (1), dSᵀ written → both read it (2). Each buffer
// is single: consumer 0 writes the next Pᵀ only after barrier 2 of this block, which consumer 1
// reaches after reading Pᵀ; consumer 1 writes the next dSᵀ only after barrier 1 of the next
// block, which consumer 0 reaches after its dQ of this block has completed.
#pragma once

#include "fa3/fa3_bwd_kernel.cuh"

namespace fa2b {
namespace fa3 {

// The writer thread: per query block, each consumer's dQ pieces as they arrive, added to the
// fp32 accumulator (rows past T_q are skipped by the copy engine), then the stage freed once the
// copy engine has read them; before leaving, every addition landed (the post-pass reads them).
template <typename Traits>
__device__ __forceinline__ void write_dq_pieces(const Fa3BwdArgs& a, const BwdSmem<Traits>& sm,
                                                const BwdBlock& blk) {
  sm90::tma_prefetch_map(&a.dq_map);
  for (int it = 0; it < blk.iterations; ++it) {
    const int st = sm90::ring_slot<Traits::kStages>(it);
    const std::uint32_t phase = sm90::ring_phase<Traits::kStages>(it);
    const int h = blk.head(it);
    const int m0 = blk.m0(it, Traits::kBlockM);
#pragma unroll
    for (int piece = 0; piece < Traits::kDQPieces; ++piece) {
#pragma unroll
      for (int c = 0; c < Traits::kConsumers; ++c) {
        sm90::mbar_wait(sm.dq_full(st, c, piece), phase);
        const std::uint32_t src = sm.dq_piece(st, c, piece);
#pragma unroll
        for (int box = 0; box < 2; ++box) {
          sm90::tma_reduce_add_4d(&a.dq_map, src + box * Traits::kDQBoxBytes,
                                  c * Traits::kHalf + 64 * piece + 32 * box, m0, h, blk.b);
        }
      }
    }
    sm90::bulk_commit_group();
    sm90::bulk_wait_group_read<0>();
    sm90::mbar_arrive(sm.empty(st));
  }
  sm90::bulk_wait_group<0>();
}

template <typename Traits, typename T, bool kCausal>
__global__ void __launch_bounds__(Traits::kThreads, 1)
    fa3_bwd_split_kernel(const __grid_constant__ Fa3BwdArgs args) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  const AttnBwdParams& p = args.p;
  constexpr int kBM = Traits::kBlockM;
  constexpr int kBN = Traits::kBlockN;
  constexpr int kD = Traits::kHeadDim;
  constexpr int kHalf = Traits::kHalf;
  constexpr int kSAcc = kBM / 2;       // Sᵀ or dPᵀ accumulators per thread (m64 x kBM)
  constexpr int kHalfAcc = kHalf / 2;  // dK, dV, dQ halves (m64 x D/2)
  constexpr float kLog2e = 1.4426950408889634f;
  constexpr int kBarP = 1;   // Pᵀ handed to consumer 1
  constexpr int kBarDS = 2;  // dSᵀ in its tile

  extern __shared__ unsigned char smem_raw[];
  const BwdSmem<Traits> sm{(smem_u32(smem_raw) + 1023u) & ~1023u};
  unsigned char* const smem_base = smem_raw + (sm.base - smem_u32(smem_raw));

  const int tid = static_cast<int>(threadIdx.x);
  const AttnParams& f = p.fwd;
  const BwdBlock blk = bwd_block_of<Traits, kCausal>(f);
  if (tid == 0) init_bwd_barriers<Traits>(sm);
  __syncthreads();

  // Broadcast from lane 0, so that the compiler knows the role is the same in every lane and
  // keeps the descriptors chosen by it in uniform registers.
  const int wg = __shfl_sync(0xffffffffu, tid / 128, 0);
  if (wg == 0) {
    sm90::setmaxnreg_dec<Traits::kProducerRegs>();
    if (tid == 0 && blk.iterations > 0) produce_bwd(args, sm, blk);
    if (tid == 32 && blk.iterations > 0) write_dq_pieces(args, sm, blk);
    return;
  }
  sm90::setmaxnreg_inc<Traits::kConsumerRegs>();

  const int cwg = wg - 1;
  const int in_wg = tid % 128;
  const int warp = in_wg / 32;
  const int lane = tid % 32;

  float acc_dk[kHalfAcc];
  float acc_dv[kHalfAcc];
#pragma unroll
  for (int i = 0; i < kHalfAcc; ++i) acc_dk[i] = acc_dv[i] = 0.f;

  // Both consumers hold the same rows of Sᵀ and dPᵀ (keys) and columns (queries): the same
  // thread of either warpgroup has the same elements, which is what lets Pᵀ pass as registers.
  const int key_row = warp * 16 + (lane >> 2);
  const int col_lane = 2 * (lane & 3);
  const int dq_row = key_row;  // rows of dQ (queries) are the same lanes'
  const float scale_log2 = f.scale * kLog2e;
  // This consumer's columns: byte offsets of its 64-column blocks in a Q or dO tile and in K.
  const std::uint32_t half_q = static_cast<std::uint32_t>(cwg * (kHalf / 64) * kBM * 128);
  const std::uint32_t k_half = sm.k() + static_cast<std::uint32_t>(cwg * (kHalf / 64) * kBN * 128);
  // Sᵀ = K·Qᵀ for consumer 0, dPᵀ = V·dOᵀ for consumer 1.
  const std::uint32_t first_a = cwg == 0 ? sm.k() : sm.v();
  float* const p_xfer = reinterpret_cast<float*>(smem_base + (sm.p_xfer() - sm.base));
  unsigned char* const ds_bytes = smem_base + (sm.ds(0) - sm.base);
  const std::uint32_t s_ds = sm.ds(0);

  if (blk.iterations > 0) sm90::mbar_wait(sm.kv_full(), 0);
  for (int it = 0; it < blk.iterations; ++it) {
    const int m0 = blk.m0(it, kBM);
    const int st = sm90::ring_slot<Traits::kStages>(it);
    const std::uint32_t s_q = sm.q(st);
    const std::uint32_t s_do = sm.d_o(st);
    const float* s_lse = reinterpret_cast<const float*>(smem_base + (sm.lse(st) - sm.base));
    const float* s_di = reinterpret_cast<const float*>(smem_base + (sm.d_i(st) - sm.base));
    sm90::mbar_wait(sm.full(st), sm90::ring_phase<Traits::kStages>(it));

    float sd[kSAcc];  // Sᵀ then Pᵀ (consumer 0); dPᵀ then dSᵀ (consumer 1)
    const std::uint32_t first_b = cwg == 0 ? s_q : s_do;
    sm90::wgmma_fence();
#pragma unroll
    for (int ks = 0; ks < kD / 16; ++ks) {
      sm90::wgmma_ss<T, kBM, 0, 0>(sd, sm90::kmajor_desc<kBN>(first_a, 0, ks),
                                   sm90::kmajor_desc<kBM>(first_b, 0, ks), ks > 0 ? 1 : 0);
    }
    sm90::wgmma_commit();
    sm90::wgmma_wait<0>();
    sm90::fence_operands(sd);

    std::uint32_t pa[kBM / 16][4];
    std::uint32_t dsa[kBM / 16][4];
    if (cwg == 0) {
      const bool need_mask = kCausal && blk.n0 + kBN - 1 > m0 + blk.diag;
      bwd_probabilities<kSAcc, kCausal>(sd, s_lse, scale_log2, need_mask, blk.n0, key_row, m0,
                                        col_lane, blk.diag);
#pragma unroll
      for (int i = 0; i < kSAcc; ++i) p_xfer[i * 128 + in_wg] = sd[i];
    }
    // Both hand-over barriers are syncs at one instruction for both warpgroups: bar.sync is
    // aligned (every thread taking part meets the same instruction, or synccheck reports it
    // divergent), and racecheck orders accesses by the syncs each thread has met, so an arrive
    // here would leave the dSᵀ hand-over below looking unordered. Consumer 1 waits here anyway
    // (its dPᵀ is as long as Sᵀ), so consumer 0 loses nothing by waiting too.
    sm90::named_barrier_sync(kBarP, 256);
    if (cwg == 0) {
#pragma unroll
      for (int kk = 0; kk < kBM / 16; ++kk) pack_a_fragment<T>(sd, kk, pa[kk]);
      sm90::wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < kBM / 16; ++kk) {
        sm90::wgmma_rs<T, kHalf, 1>(acc_dv, pa[kk], sm90::mnmajor_desc<kBM>(s_do + half_q, kk), 1);
      }
      sm90::wgmma_commit();
    } else {
      float pr[kSAcc];
#pragma unroll
      for (int i = 0; i < kSAcc; ++i) pr[i] = p_xfer[i * 128 + in_wg];
      bwd_ds(sd, pr, s_di, col_lane);
#pragma unroll
      for (int kk = 0; kk < kBM / 16; ++kk) {
        pack_a_fragment<T>(pr, kk, pa[kk]);
        pack_a_fragment<T>(sd, kk, dsa[kk]);
      }
#pragma unroll
      for (int kk = 0; kk < kBM / 16; ++kk) {
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          *reinterpret_cast<std::uint32_t*>(ds_fragment_word(ds_bytes, key_row, col_lane, kk, e)) =
              dsa[kk][e];
        }
      }
      sm90::fence_smem_for_async_proxy();
    }
    sm90::named_barrier_sync(kBarDS, 256);
    if (cwg == 0) {
#pragma unroll
      for (int kk = 0; kk < kBM / 16; ++kk) {
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          dsa[kk][e] = *reinterpret_cast<const std::uint32_t*>(
              ds_fragment_word(ds_bytes, key_row, col_lane, kk, e));
        }
      }
    } else {
      sm90::wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < kBM / 16; ++kk) {
        sm90::wgmma_rs<T, kHalf, 1>(acc_dv, pa[kk], sm90::mnmajor_desc<kBM>(s_do + half_q, kk), 1);
      }
      sm90::wgmma_commit();
    }
    sm90::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < kBM / 16; ++kk) {
      sm90::wgmma_rs<T, kHalf, 1>(acc_dk, dsa[kk], sm90::mnmajor_desc<kBM>(s_q + half_q, kk), 1);
    }
    sm90::wgmma_commit();
    // dQ[:, half] = dS·K[:, half] over this block's keys, one 64-column piece at a time: beside
    // dK's and dV's accumulators and the fragments of Pᵀ and dSᵀ, a whole half's 64 accumulators
    // do not fit a consumer's 240 registers, and ptxas would then serialise every wgmma.
#pragma unroll
    for (int piece = 0; piece < Traits::kDQPieces; ++piece) {
      float dq[32];
      sm90::wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < kBN / 16; ++kk) {
        sm90::wgmma_ss<T, 64, 1, 1>(dq, sm90::mnmajor_desc<kBN>(s_ds, kk),
                                    sm90::mnmajor_desc<kBN>(k_half + piece * kBN * 128, kk),
                                    kk > 0 ? 1 : 0);
      }
      sm90::wgmma_commit();
      sm90::wgmma_wait<0>();
      sm90::fence_operands(dq);
      if (piece == 0) {  // the dV and dK products have completed too: their operands are free
        sm90::fence_operands(acc_dv);
        sm90::fence_operands(acc_dk);
        sm90::fence_operands(pa);
        sm90::fence_operands(dsa);
      }
      // The piece's place: this consumer's half of Q (piece 0) or dO (piece 1), which no
      // product reads any more (its own dK and dV have completed; the other consumer reads only
      // its own half, and Sᵀ and dPᵀ completed before the hand-over barriers).
      store_dq_slice(sm.dq_piece(st, cwg, piece), dq, dq_row, col_lane);
      sm90::fence_smem_for_async_proxy();
      sm90::mbar_arrive(sm.dq_full(st, cwg, piece));
    }
  }

  // This consumer's columns of dK and dV.
  store_dk_dv<T>(p, blk, acc_dk, acc_dv, key_row, cwg * kHalf, col_lane);
#else
  (void)args;
#endif
}

}  // namespace fa3
}  // namespace fa2b
