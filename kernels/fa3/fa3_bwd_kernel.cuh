// SPDX-License-Identifier: Apache-2.0
// Hopper attention backward, version 3: FlashAttention-2's backward (Dao 2023, algorithm 2) on
// warpgroup MMA with warp specialisation, as FlashAttention-3's.
//
// One CTA per (key block, KV head, batch). Warpgroup 0 is the producer: one thread loads K and V
// once by the copy engine, then per query block (of every query head of the KV group) Q and dO
// and the rows' LSE and D_i (the preprocessing pass's padded copies) into kStages stages handed
// over through full/empty mbarriers; the warpgroup gives its registers to the consumers. Each
// of the two consumer warpgroups owns 64 keys, their dK and dV in registers (grouped-query dK/dV
// summed on chip). Per query block: Sᵀ = K·Qᵀ and dPᵀ = V·dOᵀ (both operands in shared memory), Pᵀ
// = exp(Sᵀ·scale − LSE) and dSᵀ = Pᵀ ∘ (dPᵀ − D) in registers, dV += Pᵀ·dO and dK += dSᵀ·Q with Pᵀ
// and dSᵀ as register A operands (dO and Q read MN-major), dSᵀ to shared memory (double buffered;
// the consumers meet on a named barrier once both halves are there), then dQ = dS·K (dS read
// MN-major from dSᵀ) added into the fp32 accumulator by the copy engine from shared memory (each
// warpgroup's slice, one thread issuing). Sᵀ and dPᵀ are waited for one at a time, so the
// exponentials overlap dPᵀ. The pre-pass is fa3's own (fa3_bwd_passes.cuh: D_i, LSE·log2(e), the
// zeroed accumulator); the post-pass is the shared bwd_convert_dq (common/bwd_row_passes.cuh:
// scale · accumulator → dQ).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "common/attn_params.h"
#include "common/fast_exp2.cuh"
#include "common/mma.cuh"
#include "core/mask_rule.h"
#include "fa3/fa3_bwd_traits.h"
#include "fa3/fa3_softmax.cuh"
#include "hopper/mbarrier.cuh"
#include "hopper/tma.cuh"
#include "hopper/warpgroup.cuh"
#include "hopper/wgmma_desc.cuh"
#include "hopper/wgmma_ops.cuh"
#include "hopper/wgmma_sync.cuh"

namespace fa2b {

// The main kernel's parameter: the backward's tensors, the workspace, and the copy engine's
// maps of Q, K, V, dO and the statistics (loads) and of the dQ accumulator (reductions).
struct Fa3BwdArgs {
  AttnBwdParams p;
  CUtensorMap q_map, k_map, v_map, do_map;
  CUtensorMap dq_map;
  // The preprocessing pass's statistics: B·H rows of LSE·log2(e), then B·H rows of D_i, each
  // fa3_bwd_stat_pitch(T_q) long, zeros past T_q.
  CUtensorMap stat_map;
};

namespace fa3 {

// One thread's dQ accumulators (kDQAcc / 2 columns of the warpgroup's slice or piece, rows row
// and row + 8) into shared memory: 32-column boxes of 64 rows, each row's 16-byte chunks
// swizzled by row % 8 as the copy engine's 128-byte swizzle expects.
template <int kDQAcc>
__device__ __forceinline__ void store_dq_slice(std::uint32_t slice, const float (&dq)[kDQAcc],
                                               int row, int col_lane) {
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int rr = row + 8 * r;
#pragma unroll
    for (int j = 0; j < kDQAcc / 4; ++j) {
      const int col = j * 8 + col_lane;
      const int in_box = col % 32;
      const std::uint32_t addr = slice + (col / 32) * (64 * 128) + rr * 128 +
                                 (((in_box / 4) ^ (rr & 7)) << 4) + (in_box % 4) * 4;
      asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(addr), "f"(dq[4 * j + 2 * r]),
                   "f"(dq[4 * j + 2 * r + 1])
                   : "memory");
    }
  }
}

// Shared-memory addresses of one CTA (Fa3BwdTraits' plan).
template <typename Traits>
struct BwdSmem {
  std::uint32_t base;  // 1024-aligned
  __device__ std::uint32_t k() const { return base; }
  __device__ std::uint32_t v() const { return base + Traits::kKVBytes; }
  __device__ std::uint32_t q(int st) const {
    return base + Traits::kQOffset + st * Traits::kQBytes;
  }
  __device__ std::uint32_t d_o(int st) const {
    return base + Traits::kDOOffset + st * Traits::kQBytes;
  }
  __device__ std::uint32_t ds(int buf) const {
    return base + Traits::kDSOffset + buf * Traits::kDSBytes;
  }
  // The dQ slice of (buffer, consumer warpgroup).
  __device__ std::uint32_t dq(int buf, int cwg) const {
    return base + Traits::kDQOffset + (buf * Traits::kConsumers + cwg) * Traits::kDQSliceBytes;
  }
  __device__ std::uint32_t p_xfer() const { return base + Traits::kPOffset; }  // split-D only
  __device__ std::uint32_t lse(int st) const {
    return base + Traits::kStatOffset + st * 2 * Traits::kBlockM * 4;
  }
  __device__ std::uint32_t d_i(int st) const { return lse(st) + Traits::kBlockM * 4; }
  __device__ std::uint32_t bar(int i) const { return base + Traits::kBarOffset + 8 * i; }
  __device__ std::uint32_t kv_full() const { return bar(0); }
  __device__ std::uint32_t full(int st) const { return bar(1 + st); }
  __device__ std::uint32_t empty(int st) const { return bar(1 + Traits::kStages + st); }
  // Split-D only: dQ's piece of (stage, consumer) in the half of Q (piece 0) or dO (piece 1)
  // that the consumer has finished reading, and the barrier saying it is there.
  __device__ std::uint32_t dq_piece(int st, int cwg, int piece) const {
    return (piece == 0 ? q(st) : d_o(st)) + cwg * (Traits::kHalf / 64) * Traits::kBlockM * 128;
  }
  __device__ std::uint32_t dq_full(int st, int cwg, int piece) const {
    return bar(1 + 2 * Traits::kStages + (st * Traits::kConsumers + cwg) * Traits::kDQPieces +
               piece);
  }
};

// Where the CTA sits: its key block, KV head and batch, and the query blocks it visits (the same
// range for every query head of the group; under the causal mask from the block holding row
// n0 - diag on).
struct BwdBlock {
  int n0, h_kv, b, group;
  int m_first, m_count, iterations;
  int diag;  // bottom-right causal: row i sees keys j <= i + diag
  __device__ int head(int it) const { return h_kv * group + it / m_count; }
  __device__ int m0(int it, int block_m) const { return (m_first + it % m_count) * block_m; }
};

// This CTA's key block (blockIdx.x), KV head and batch, and the query blocks it walks: under the
// causal mask those from the first that sees its first key, for each query head of the group.
template <typename Traits, bool kCausal>
__device__ __forceinline__ BwdBlock bwd_block_of(const AttnParams& f) {
  constexpr int kBM = Traits::kBlockM;
  BwdBlock blk;
  blk.n0 = static_cast<int>(blockIdx.x) * Traits::kBlockN;
  blk.h_kv = static_cast<int>(blockIdx.y);
  blk.b = static_cast<int>(blockIdx.z);
  blk.group = f.H / f.H_kv;
  blk.diag = mask_diag(f);
  const int num_m = (f.T_q + kBM - 1) / kBM;
  blk.m_first = kCausal ? min(num_m, max(0, blk.n0 - blk.diag) / kBM) : 0;
  blk.m_count = num_m - blk.m_first;
  blk.iterations = blk.m_count * blk.group;
  return blk;
}

// The mbarriers, by thread 0 before the CTA's first barrier: K and V full once, and per stage
// full (the producer's copies) and empty (Traits::kEmptyArrivals); split-D also dQ's pieces
// (every thread of the consumer).
template <typename Traits, typename Smem>
__device__ __forceinline__ void init_bwd_barriers(const Smem& sm) {
  sm90::mbar_init(sm.kv_full(), 1);
#pragma unroll
  for (int st = 0; st < Traits::kStages; ++st) {
    sm90::mbar_init(sm.full(st), 1);
    sm90::mbar_init(sm.empty(st), Traits::kEmptyArrivals);
    if constexpr (Traits::kSplitD) {
#pragma unroll
      for (int c = 0; c < Traits::kConsumers; ++c) {
#pragma unroll
        for (int piece = 0; piece < Traits::kDQPieces; ++piece) {
          sm90::mbar_init(sm.dq_full(st, c, piece), 128);
        }
      }
    }
  }
  sm90::mbar_fence_init();
}

// Pᵀ = exp2(Sᵀ·scale·log2(e) − LSE·log2(e)) in place, for one thread's m64 x kBM accumulators
// (rows: keys from n0 + key_row, columns: queries from m0 + col_lane). A key above a query's
// causal limit gets P = 0, set after the exp: a query row that sees no key at all has LSE = -inf.
template <int kSAcc, bool kCausal>
__device__ __forceinline__ void bwd_probabilities(float (&s)[kSAcc], const float* s_lse,
                                                  float scale_log2, bool need_mask, int n0,
                                                  int key_row, int m0, int col_lane, int diag) {
#pragma unroll
  for (int j = 0; j < kSAcc / 4; ++j) {
    const int col = j * 8 + col_lane;
    const float2 lse = *reinterpret_cast<const float2*>(s_lse + col);  // LSE·log2(e)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int i = 4 * j + e;
      const float lse2 = (e & 1) ? lse.y : lse.x;
      float pv = fast_exp2(fmaf(s[i], scale_log2, -lse2));
      if (kCausal && need_mask) {
        const int key = n0 + key_row + ((e & 2) ? 8 : 0);
        const int query = m0 + col + (e & 1);
        if (key > query + diag) pv = 0.f;
      }
      s[i] = pv;
    }
  }
}

// dSᵀ = Pᵀ ∘ (dPᵀ − D_i) in place of dPᵀ.
template <int kSAcc>
__device__ __forceinline__ void bwd_ds(float (&dp)[kSAcc], const float (&p)[kSAcc],
                                       const float* s_di, int col_lane) {
#pragma unroll
  for (int j = 0; j < kSAcc / 4; ++j) {
    const int col = j * 8 + col_lane;
    const float2 di = *reinterpret_cast<const float2*>(s_di + col);
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int i = 4 * j + e;
      dp[i] = p[i] * (dp[i] - ((e & 1) ? di.y : di.x));
    }
  }
}

// The address of word e of A fragment kk (columns 16 kk .. 16 kk + 15 of rows key_row and
// key_row + 8) in a swizzled tile of 64 columns (keys x queries): where the dSᵀ tile keeps it.
__device__ __forceinline__ unsigned char* ds_fragment_word(unsigned char* tile, int key_row,
                                                           int col_lane, int kk, int e) {
  const int row = key_row + ((e & 1) ? 8 : 0);
  const int chunk = 2 * kk + (e >> 1);
  return tile + row * 128 + ((chunk ^ (row & 7)) << 4) + 2 * col_lane;
}

// One thread's dK = scale · Σ dSᵀ·Q and dV = Σ Pᵀ·dO to global memory in the input dtype: rows
// n0 + key_row and the row 8 below, kAcc / 4 column pairs 8 apart from col0 + col_lane (zeros
// for a block no query sees). col0 is the first column of the caller's share of the head dim.
template <typename T, int kAcc>
__device__ __forceinline__ void store_dk_dv(const AttnBwdParams& p, const BwdBlock& blk,
                                            const float (&acc_dk)[kAcc],
                                            const float (&acc_dv)[kAcc], int key_row, int col0,
                                            int col_lane) {
  const AttnParams& f = p.fwd;
  T* d_k = static_cast<T*>(p.d_k) + blk.b * f.k_batch_stride + blk.h_kv * f.k_head_stride;
  T* d_v = static_cast<T*>(p.d_v) + blk.b * f.v_batch_stride + blk.h_kv * f.v_head_stride;
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int row = blk.n0 + key_row + 8 * r;
    if (row < f.T_k) {
      T* dk_row = d_k + static_cast<std::int64_t>(row) * f.k_row_stride + col0 + col_lane;
      T* dv_row = d_v + static_cast<std::int64_t>(row) * f.v_row_stride + col0 + col_lane;
#pragma unroll
      for (int j = 0; j < kAcc / 4; ++j) {
        *reinterpret_cast<std::uint32_t*>(dk_row + 8 * j) =
            pack2<T>(acc_dk[4 * j + 2 * r] * f.scale, acc_dk[4 * j + 2 * r + 1] * f.scale);
        *reinterpret_cast<std::uint32_t*>(dv_row + 8 * j) =
            pack2<T>(acc_dv[4 * j + 2 * r], acc_dv[4 * j + 2 * r + 1]);
      }
    }
  }
}

// The producer warp's lane 0: K and V once, then each query block's Q, dO, LSE and D_i into the
// stage its consumers freed, all by the copy engine.
template <typename Traits>
__device__ __forceinline__ void produce_bwd(const Fa3BwdArgs& a, const BwdSmem<Traits>& sm,
                                            const BwdBlock& blk) {
  constexpr int kBM = Traits::kBlockM;
  constexpr int kBN = Traits::kBlockN;
  constexpr int kCols = Traits::kHeadDim / 64;  // 64-column boxes per tile
  constexpr int kStatBytes = kBM * 4;           // one block's LSE or D_i
  const AttnParams& f = a.p.fwd;
  sm90::tma_prefetch_map(&a.q_map);
  sm90::tma_prefetch_map(&a.stat_map);
  sm90::tma_prefetch_map(&a.do_map);
  sm90::mbar_arrive_expect_tx(sm.kv_full(), 2 * Traits::kKVBytes);
#pragma unroll
  for (int c = 0; c < kCols; ++c) {
    sm90::tma_load_4d(sm.k() + c * kBN * 128, &a.k_map, sm.kv_full(), 64 * c, blk.n0, blk.h_kv,
                      blk.b);
    sm90::tma_load_4d(sm.v() + c * kBN * 128, &a.v_map, sm.kv_full(), 64 * c, blk.n0, blk.h_kv,
                      blk.b);
  }
  for (int it = 0; it < blk.iterations; ++it) {
    const int st = sm90::ring_slot<Traits::kStages>(it);
    sm90::mbar_wait(sm.empty(st), sm90::ring_phase<Traits::kStages>(it) ^ 1u);
    const int h = blk.head(it);
    const int m0 = blk.m0(it, kBM);
    sm90::mbar_arrive_expect_tx(sm.full(st), 2 * Traits::kQBytes + 2 * kStatBytes);
#pragma unroll
    for (int c = 0; c < kCols; ++c) {
      sm90::tma_load_4d(sm.q(st) + c * kBM * 128, &a.q_map, sm.full(st), 64 * c, m0, h, blk.b);
      sm90::tma_load_4d(sm.d_o(st) + c * kBM * 128, &a.do_map, sm.full(st), 64 * c, m0, h, blk.b);
    }
    const int bh = blk.b * f.H + h;
    sm90::tma_load_2d(sm.lse(st), &a.stat_map, sm.full(st), m0, bh);
    sm90::tma_load_2d(sm.d_i(st), &a.stat_map, sm.full(st), m0, f.B * f.H + bh);
  }
}

template <typename Traits, typename T, bool kCausal>
__global__ void __launch_bounds__(Traits::kThreads, 1)
    fa3_bwd_kernel(const __grid_constant__ Fa3BwdArgs args) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  const AttnBwdParams& p = args.p;
  constexpr int kBM = Traits::kBlockM;
  constexpr int kBN = Traits::kBlockN;
  constexpr int kD = Traits::kHeadDim;
  constexpr int kSAcc = kBM / 2;            // Sᵀ, dPᵀ accumulators per thread (m64 x kBM)
  constexpr int kKVAcc = kD / 2;            // dK, dV (m64 x kD)
  constexpr int kDQAcc = kD / 4;            // dQ (m64 x kD/2)
  constexpr int kDQCols = Traits::kDQCols;  // dQ columns per warpgroup
  constexpr float kLog2e = 1.4426950408889634f;
  constexpr int kConsumerThreads = 128 * Traits::kConsumers;

  extern __shared__ unsigned char smem_raw[];
  const BwdSmem<Traits> sm{(smem_u32(smem_raw) + 1023u) & ~1023u};
  unsigned char* const smem_base = smem_raw + (sm.base - smem_u32(smem_raw));

  const int tid = static_cast<int>(threadIdx.x);
  const AttnParams& f = p.fwd;
  const BwdBlock blk = bwd_block_of<Traits, kCausal>(f);
  if (tid == 0) init_bwd_barriers<Traits>(sm);
  __syncthreads();

  const int wg = tid / 128;
  if (wg == 0) {
    sm90::setmaxnreg_dec<Traits::kProducerRegs>();
    if (tid == 0 && blk.iterations > 0) produce_bwd(args, sm, blk);
    return;
  }
  sm90::setmaxnreg_inc<Traits::kConsumerRegs>();

  const int cwg = wg - 1;
  const int in_wg = tid % 128;
  const int warp = in_wg / 32;
  const int lane = tid % 32;

  float acc_dk[kKVAcc];
  float acc_dv[kKVAcc];
#pragma unroll
  for (int i = 0; i < kKVAcc; ++i) acc_dk[i] = acc_dv[i] = 0.f;

  // This thread's first key row within the block (accumulator rows of Sᵀ, dPᵀ, dK, dV), and its
  // first column within a query block (columns of Sᵀ and dPᵀ; rows of dQ are the same lanes').
  const int key_row = cwg * 64 + warp * 16 + (lane >> 2);
  const int col_lane = 2 * (lane & 3);
  const int dq_row = warp * 16 + (lane >> 2);
  const float scale_log2 = f.scale * kLog2e;
  const bool issuer = in_wg == 0;

  if (blk.iterations > 0) sm90::mbar_wait(sm.kv_full(), 0);
  for (int it = 0; it < blk.iterations; ++it) {
    const int h = blk.head(it);
    const int m0 = blk.m0(it, kBM);
    const int st = sm90::ring_slot<Traits::kStages>(it);
    const std::uint32_t s_q = sm.q(st);
    const std::uint32_t s_do = sm.d_o(st);
    const float* s_lse = reinterpret_cast<const float*>(smem_base + (sm.lse(st) - sm.base));
    const float* s_di = reinterpret_cast<const float*>(smem_base + (sm.d_i(st) - sm.base));
    sm90::mbar_wait(sm.full(st), sm90::ring_phase<Traits::kStages>(it));

    float s[kSAcc];
    float dp[kSAcc];
    sm90::wgmma_fence();
#pragma unroll
    for (int ks = 0; ks < kD / 16; ++ks) {
      sm90::wgmma_ss<T, kBM, 0, 0>(s, sm90::kmajor_desc<kBN>(sm.k(), cwg * 64, ks),
                                   sm90::kmajor_desc<kBM>(s_q, 0, ks), ks > 0 ? 1 : 0);
    }
    sm90::wgmma_commit();
#pragma unroll
    for (int ks = 0; ks < kD / 16; ++ks) {
      sm90::wgmma_ss<T, kBM, 0, 0>(dp, sm90::kmajor_desc<kBN>(sm.v(), cwg * 64, ks),
                                   sm90::kmajor_desc<kBM>(s_do, 0, ks), ks > 0 ? 1 : 0);
    }
    sm90::wgmma_commit();
    sm90::wgmma_wait<1>();  // Sᵀ only: dPᵀ may still run while the exponentials do
    sm90::fence_operands(s);

    const bool need_mask = kCausal && blk.n0 + kBN - 1 > m0 + blk.diag;
    bwd_probabilities<kSAcc, kCausal>(s, s_lse, scale_log2, need_mask, blk.n0, key_row, m0,
                                      col_lane, blk.diag);
    sm90::wgmma_wait<0>();
    sm90::fence_operands(dp);
    bwd_ds(dp, s, s_di, col_lane);

    std::uint32_t pa[kBM / 16][4];
    std::uint32_t dsa[kBM / 16][4];
#pragma unroll
    for (int kk = 0; kk < kBM / 16; ++kk) {
      pack_a_fragment<T>(s, kk, pa[kk]);
      pack_a_fragment<T>(dp, kk, dsa[kk]);
    }
    sm90::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < kBM / 16; ++kk) {
      sm90::wgmma_rs<T, kD, 1>(acc_dv, pa[kk], sm90::mnmajor_desc<kBM>(s_do, kk), 1);
    }
#pragma unroll
    for (int kk = 0; kk < kBM / 16; ++kk) {
      sm90::wgmma_rs<T, kD, 1>(acc_dk, dsa[kk], sm90::mnmajor_desc<kBM>(s_q, kk), 1);
    }
    sm90::wgmma_commit();

    // dSᵀ to its buffer (keys x queries, one 64-column swizzled block): fragment kk holds
    // columns 16 kk .. 16 kk + 15 of rows key_row and key_row + 8. The buffer was last read by
    // block it - 2's dQ, which both warpgroups waited for before block it - 1's barrier below.
    const std::uint32_t s_ds = sm.ds(it & 1);
    {
      unsigned char* ds_bytes = smem_base + (s_ds - sm.base);
#pragma unroll
      for (int kk = 0; kk < kBM / 16; ++kk) {
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int row = key_row + ((e & 1) ? 8 : 0);
          const int chunk = 2 * kk + (e >> 1);
          *reinterpret_cast<std::uint32_t*>(ds_bytes + row * 128 + ((chunk ^ (row & 7)) << 4) +
                                            2 * col_lane) = dsa[kk][e];
        }
      }
    }
    sm90::fence_smem_for_async_proxy();
    sm90::named_barrier_sync(1, kConsumerThreads);  // dSᵀ complete from both warpgroups

    // dQ = dS·K over this block's keys: warpgroup cwg takes columns [cwg D/2, cwg D/2 + D/2).
    float dq[kDQAcc];
    sm90::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < kBN / 16; ++kk) {
      const std::uint32_t k_cols =
          sm.k() + (cwg * kDQCols / 64) * kBN * 128 + (cwg * kDQCols % 64) * 2;
      sm90::wgmma_ss<T, kDQCols, 1, 1>(dq, sm90::mnmajor_desc<kBN>(s_ds, kk),
                                       sm90::mnmajor_desc<kBN>(k_cols, kk), kk > 0 ? 1 : 0);
    }
    sm90::wgmma_commit();
    sm90::wgmma_wait<0>();
    sm90::fence_operands(dq);
    sm90::fence_operands(acc_dv);
    sm90::fence_operands(acc_dk);
    sm90::fence_operands(pa);
    sm90::fence_operands(dsa);
    // This warp no longer reads the stage (Q and dO by wgmma, LSE and D_i above).
    if (lane == 0) sm90::mbar_arrive(sm.empty(st));

    // The slice of buffer it % 2 was last read by the copy engine two blocks ago: its issuer
    // waits for that read, the warpgroup's barrier passes the word on; after the stores (and
    // the proxy fence) a second barrier hands the slice to the issuer.
    const std::uint32_t slice = sm.dq(it & 1, cwg);
    if (issuer) sm90::bulk_wait_group_read<1>();
    sm90::named_barrier_sync(2 + cwg, 128);
    store_dq_slice(slice, dq, dq_row, col_lane);
    sm90::fence_smem_for_async_proxy();
    sm90::named_barrier_sync(2 + cwg, 128);
    if (issuer) {
#pragma unroll
      for (int box = 0; box < kDQCols / 32; ++box) {
        sm90::tma_reduce_add_4d(&args.dq_map, slice + box * Traits::kDQBoxBytes,
                                cwg * kDQCols + 32 * box, m0, h, blk.b);
      }
      sm90::bulk_commit_group();
    }
  }
  // The copy engine's last additions must land before the post-pass reads the accumulator.
  if (issuer) sm90::bulk_wait_group<0>();

  store_dk_dv<T>(p, blk, acc_dk, acc_dv, key_row, 0, col_lane);
#else
  (void)args;
#endif
}

}  // namespace fa3
}  // namespace fa2b
