// SPDX-License-Identifier: Apache-2.0
// Hopper attention forward, version 4: the FlashAttention-2 algorithm on warpgroup MMA with
// warp specialisation, as FlashAttention-3.
//
// One CTA per (query tile, batch, head). Warpgroup 0 is the producer: one thread issues the
// copy engine's loads (Q once, then K and V tiles into kStages stages, each stage handed over
// through a full/empty mbarrier pair) and the warpgroup gives its registers to the consumers.
// Each consumer warpgroup owns 64 query rows. Per key tile it issues S = Q·Kᵀ (both operands
// in shared memory), then O += P·V of the tile before (P straight from registers as the A
// operand, V read MN-major), and runs the online softmax of S while that P·V is on the tensor
// cores. The two consumers take turns issuing their GEMMs (named barriers), so one's softmax
// overlaps the other's GEMMs. Masked tiles (T_k tail, causal diagonal) run in a loop of their
// own: no branch sits between a wgmma and its wait, where ptxas would wait for it.
// Key tiles are walked from the last to the first so the masked tiles come first.
// A packed variable-length batch (cu_seqlens) is one batch of all its tokens to the copy engine;
// each CTA reads its sequence's offsets and lengths and masks, loads and stores within them
// (rows a tile reads past its sequence belong to the next one, or lie past the tensor and come
// in as zeros, and are masked like a T_k tail).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "common/attn_params.h"
#include "common/mma.cuh"
#include "common/tile_order.h"
#include "core/mask_rule.h"
#include "fa3/fa3_fwd_args.h"
#include "fa3/fa3_softmax.cuh"
#include "fa3/fa3_traits.h"
#include "hopper/mbarrier.cuh"
#include "hopper/sw128_tile.cuh"
#include "hopper/tma.cuh"
#include "hopper/warpgroup.cuh"
#include "hopper/wgmma_desc.cuh"
#include "hopper/wgmma_ops.cuh"
#include "hopper/wgmma_sync.cuh"

namespace fa2b {
namespace fa3 {

// Shared-memory addresses of one CTA (Fa3FwdTile's plan).
template <typename Traits>
struct FwdSmem {
  std::uint32_t base;  // 1024-aligned
  __device__ std::uint32_t q(int qb) const { return base + qb * Traits::kQBytes; }
  __device__ std::uint32_t k(int st) const {
    return base + Traits::kKOffset + st * Traits::kKVBytes;
  }
  __device__ std::uint32_t v(int st) const {
    return base + Traits::kVOffset + st * Traits::kKVBytes;
  }
  __device__ std::uint32_t bar(int i) const { return base + Traits::kBarOffset + 8 * i; }
  static constexpr int kQB = Traits::kQBuffers;
  static constexpr int kSt = Traits::kStages;
  __device__ std::uint32_t q_full(int qb) const { return bar(qb); }
  __device__ std::uint32_t k_full(int st) const { return bar(kQB + st); }
  __device__ std::uint32_t k_empty(int st) const { return bar(kQB + kSt + st); }
  __device__ std::uint32_t v_full(int st) const { return bar(kQB + 2 * kSt + st); }
  __device__ std::uint32_t v_empty(int st) const { return bar(kQB + 3 * kSt + st); }
  __device__ std::uint32_t q_empty(int qb) const { return bar(kQB + 4 * kSt + qb); }
};

// Where the CTA's tile sits and which key tiles it visits. T_q and T_k are the tile's own
// sequence's lengths; its rows start at rows q_row0 / k_row0 of batch map_b of the copy
// engine's maps (a packed batch is one batch of all its tokens there: map_b 0).
struct FwdTile {
  int m0, h, h_kv, b;
  int n_blocks;  // key tiles n_blocks - 1 .. 0 are visited, in that order
  int T_q, T_k;
  int q_row0, k_row0, map_b;
  bool empty;  // past its sequence's rows (packed batches): no CTA does anything for it
  // A persistent CTA's running counts over the tiles it did before this one: key tiles (the
  // stage and phase of this tile's first one) and tiles (the phase of Q's barriers).
  int kv_base = 0;
  int q_iter = 0;
};

// The i-th key tile of the walk, and the CTA's q_iter-th tile's Q.
template <typename Traits>
__device__ __forceinline__ int stage_of(int i) {
  return sm90::ring_slot<Traits::kStages>(i);
}
template <typename Traits>
__device__ __forceinline__ std::uint32_t phase_of(int i) {
  return sm90::ring_phase<Traits::kStages>(i);
}

// The producer's one thread: Q, then K and V of every visited tile as stages free up.
template <typename Traits>
__device__ __forceinline__ void produce(const Fa3FwdArgs& a, const FwdSmem<Traits>& sm,
                                        const FwdTile& tile) {
  constexpr int kBM = Traits::kBlockM;
  constexpr int kBN = Traits::kBlockN;
  constexpr int kCols = Traits::kHeadDim / 64;  // 64-column boxes per tile
  sm90::tma_prefetch_map(&a.q);
  sm90::tma_prefetch_map(&a.k);
  sm90::tma_prefetch_map(&a.v);
  // One tile of kRows rows at row0 of a (D, T, H, B) map: its 64-column boxes, side by side
  // in the swizzled layout, announced to `full` as one transaction.
  auto load_tile = [](std::uint32_t dst, const CUtensorMap* map, std::uint32_t full, int rows,
                      int bytes, int row0, int head, int batch) {
    sm90::mbar_arrive_expect_tx(full, bytes);
    sm90::tma_load_tile_4d<kCols>(dst, map, full, rows, row0, head, batch);
  };
  // Q once the consumers are done with the buffer's last tile (its S products and the epilogue
  // that stages O in its place); the first K and V tiles go before it, as their stages free
  // earlier.
  auto load_q = [&] {
    const int qb = sm90::ring_slot<Traits::kQBuffers>(tile.q_iter);
    if (tile.q_iter >= Traits::kQBuffers)
      sm90::mbar_wait(sm.q_empty(qb), sm90::ring_phase<Traits::kQBuffers>(tile.q_iter) ^ 1u);
    load_tile(sm.q(qb), &a.q, sm.q_full(qb), kBM, Traits::kQBytes, tile.q_row0 + tile.m0, tile.h,
              tile.map_b);
  };
  const int last = tile.n_blocks - 1;
  for (int i = 0; i < tile.n_blocks; ++i) {
    const int st = stage_of<Traits>(tile.kv_base + i);
    const std::uint32_t free_parity = phase_of<Traits>(tile.kv_base + i) ^ 1u;
    const int row0 = (last - i) * kBN;
    sm90::mbar_wait(sm.k_empty(st), free_parity);
    load_tile(sm.k(st), &a.k, sm.k_full(st), kBN, Traits::kKVBytes, tile.k_row0 + row0, tile.h_kv,
              tile.map_b);
    sm90::mbar_wait(sm.v_empty(st), free_parity);
    load_tile(sm.v(st), &a.v, sm.v_full(st), kBN, Traits::kKVBytes, tile.k_row0 + row0, tile.h_kv,
              tile.map_b);
    if (i == 0) load_q();
  }
  if (tile.n_blocks == 0) load_q();  // its consumers wait for it and write zeros
}

// One consumer warpgroup: 64 query rows, their output accumulators, softmax state and the
// probabilities of the last tile (the A operand of its P·V, issued one tile later).
template <typename Traits, typename T, bool kCausal>
struct Consumer {
  static constexpr int kBN = Traits::kBlockN;
  static constexpr int kD = Traits::kHeadDim;
  static constexpr int kSAcc = kBN / 2;  // score accumulators per thread (m64 x kBN / 128)
  static constexpr int kOAcc = kD / 2;

  const AttnParams& p;
  const FwdSmem<Traits>& sm;
  const FwdTile tile;        // by value: a reference would keep it in local memory
  int cwg;                   // consumer warpgroup index: rows [64 cwg, 64 cwg + 64) of the tile
  int row_base;              // this thread's first row within the tile
  int col_lane;              // this thread's first column within a key tile
  std::uint32_t q_tile;      // the tile's Q buffer (shared memory)
  const CUtensorMap* o_map;  // O's map (kTmaStore tiles)
  bool arrives;              // lane 0 of its warp: frees stages for the warp
  float scale_log2;

  float acc_o[kOAcc];
  RowState row;
  float corr[2];
  std::uint32_t pa[kBN / 16][4];

  // The consumers issue their GEMMs in turn, round robin: sync on our barrier, issue, arrive
  // on the next one's. Barrier 1 + c belongs to consumer c (0 is __syncthreads); 256 threads
  // meet at each: the 128 that wait and the 128 that pass.
  __device__ __forceinline__ void wait_turn() const {
    if constexpr (Traits::kTakeTurns) sm90::named_barrier_sync(1 + cwg, 256);
  }
  __device__ __forceinline__ void pass_turn() const {
    if constexpr (Traits::kTakeTurns) {
      sm90::named_barrier_arrive(1 + (cwg + 1) % Traits::kConsumers, 256);
    }
  }
  __device__ __forceinline__ bool is_last_consumer() const { return cwg == Traits::kConsumers - 1; }

  __device__ __forceinline__ void issue_s(float (&s)[kSAcc], int i) const {
    const std::uint32_t k_tile = sm.k(stage_of<Traits>(tile.kv_base + i));
#pragma unroll
    for (int ks = 0; ks < kD / 16; ++ks) {
      sm90::wgmma_ss<T, kBN, 0, 0>(s, sm90::kmajor_desc<Traits::kBlockM>(q_tile, cwg * 64, ks),
                                   sm90::kmajor_desc<kBN>(k_tile, 0, ks), ks > 0 ? 1 : 0);
    }
    sm90::wgmma_commit();
  }

  __device__ __forceinline__ void issue_pv(int i) {
    const std::uint32_t v_tile = sm.v(stage_of<Traits>(tile.kv_base + i));
#pragma unroll
    for (int kk = 0; kk < kBN / 16; ++kk) {
      sm90::wgmma_rs<T, kD, 1>(acc_o, pa[kk], sm90::mnmajor_desc<kBN>(v_tile, kk), 1);
    }
    sm90::wgmma_commit();
  }

  __device__ __forceinline__ void mask(float (&s)[kSAcc], int n) const {
    const int col0 = n * kBN;
    const int tk_limit = tile.T_k - col0 - col_lane;
    // Key col0 + col_lane + dc is above row m0 + row_base + dr's causal limit (row + diag,
    // core/mask_rule.h) when dc > diag_limit + dr.
    const int diag_limit = tile.m0 + mask_diag(tile) + row_base - col0 - col_lane;
    if (kCausal && col0 + kBN <= tile.T_k) {
      // A causal tile inside T_k (the usual one): one compare an element, not two.
#pragma unroll
      for (int e = 0; e < kSAcc; ++e) {
        const int dc = (e / 4) * 8 + (e & 1);
        const int dr = (e & 2) ? 8 : 0;
        if (dc > diag_limit + dr) s[e] = -INFINITY;
      }
      return;
    }
#pragma unroll
    for (int e = 0; e < kSAcc; ++e) {
      const int dc = (e / 4) * 8 + (e & 1);
      const int dr = (e & 2) ? 8 : 0;
      if (dc >= tk_limit || (kCausal && dc > diag_limit + dr)) s[e] = -INFINITY;
    }
  }

  // Key tile i of the walk (n = n_blocks - 1 - i). kWithPV: the P·V of tile i - 1 rides
  // behind this tile's S (every tile but the first).
  template <bool kMasked, bool kWithPV>
  __device__ __forceinline__ void step(int i) {
    const int st = stage_of<Traits>(tile.kv_base + i);
    float s[kSAcc];
    sm90::mbar_wait(sm.k_full(st), phase_of<Traits>(tile.kv_base + i));
    wait_turn();
    sm90::wgmma_fence();
    issue_s(s, i);
    if constexpr (kWithPV) {
      // O was last written by the P·V of tile i - 2 (done): bring it to tile i - 1's maxima
      // while S runs, then add tile i - 1.
      rescale_rows(acc_o, corr);
      const int prev = tile.kv_base + i - 1;
      sm90::mbar_wait(sm.v_full(stage_of<Traits>(prev)), phase_of<Traits>(prev));
      sm90::wgmma_fence();
      issue_pv(i - 1);
      pass_turn();
      sm90::wgmma_wait<1>();
    } else {
      pass_turn();
      sm90::wgmma_wait<0>();
    }
    sm90::fence_operands(s);
    __syncwarp();
    if (arrives) sm90::mbar_arrive(sm.k_empty(st));
    if constexpr (kMasked) mask(s, tile.n_blocks - 1 - i);
    online_softmax(s, row, scale_log2, corr);
    if constexpr (kWithPV) {
      sm90::wgmma_wait<0>();
      sm90::fence_operands(acc_o);
      sm90::fence_operands(pa);
      __syncwarp();
      if (arrives) sm90::mbar_arrive(sm.v_empty(stage_of<Traits>(tile.kv_base + i - 1)));
    }
#pragma unroll
    for (int kk = 0; kk < kBN / 16; ++kk) pack_a_fragment<T>(s, kk, pa[kk]);
  }

  // How many key tiles of the walk this warpgroup's rows see: a suffix of it, as the walk visits
  // the highest keys first. Under the causal mask a tile's first rows stop short of its last key
  // tiles; rows past T_q (the last query tile's) see none.
  __device__ __forceinline__ int own_blocks() const {
    const int row_first = tile.m0 + 64 * cwg;
    if (row_first >= tile.T_q) return 0;
    if constexpr (!kCausal) {
      return tile.n_blocks;
    } else {
      // Bottom-right alignment: row i sees keys j <= i + (T_k - T_q).
      const int last_key = min(row_first + 63, tile.T_q - 1) + mask_diag(tile);
      return last_key < 0 ? 0 : min(tile.n_blocks, last_key / kBN + 1);
    }
  }

  // Step i of the walk for a warpgroup whose rows see none of tile i's keys: no GEMMs, only its
  // turn and its part in freeing the stages. It waits until the stages hold tile i, so that its
  // arrivals count towards tile i's phase and not an earlier one's.
  __device__ __forceinline__ void skip(int i) const {
    const int j = tile.kv_base + i;
    const int st = stage_of<Traits>(j);
    sm90::mbar_wait(sm.k_full(st), phase_of<Traits>(j));
    wait_turn();
    pass_turn();
    sm90::mbar_wait(sm.v_full(st), phase_of<Traits>(j));
    __syncwarp();
    if (arrives) {
      sm90::mbar_arrive(sm.k_empty(st));
      sm90::mbar_arrive(sm.v_empty(st));
    }
  }

  // The P·V of the last tile; the last consumer skips its last pass (it gave the first one its
  // first turn) so that every named barrier ends with as many arrivals as waits.
  __device__ __forceinline__ void finish() {
    const int i = tile.n_blocks - 1;
    rescale_rows(acc_o, corr);
    sm90::mbar_wait(sm.v_full(stage_of<Traits>(tile.kv_base + i)),
                    phase_of<Traits>(tile.kv_base + i));
    wait_turn();
    sm90::wgmma_fence();
    issue_pv(i);
    if (!is_last_consumer()) pass_turn();
    sm90::wgmma_wait<0>();
    sm90::fence_operands(acc_o);
    sm90::fence_operands(pa);
    // The last V stage is free too: a persistent CTA's next tile loads into it.
    __syncwarp();
    if (arrives) sm90::mbar_arrive(sm.v_empty(stage_of<Traits>(tile.kv_base + i)));
  }

  __device__ __forceinline__ void run() {
#pragma unroll
    for (int e = 0; e < kOAcc; ++e) acc_o[e] = 0.f;
    corr[0] = corr[1] = 1.f;
    // Q of every tile lands, an empty one's too: the staged epilogue writes O where Q was.
    const int qb = sm90::ring_slot<Traits::kQBuffers>(tile.q_iter);
    q_tile = sm.q(qb);
    sm90::mbar_wait(sm.q_full(qb), sm90::ring_phase<Traits::kQBuffers>(tile.q_iter));
    if (tile.n_blocks > 0) {
      // The first consumer takes the first turn.
      if (is_last_consumer()) pass_turn();
      const int last = tile.n_blocks - 1;
      const int diag = mask_diag(tile);
      // Whether this warpgroup's rows (not the whole tile's) need tile i masked.
      const int row_first = tile.m0 + 64 * cwg;
      auto needs_mask = [&](int i) {
        const int col0 = (last - i) * kBN;
        return col0 + kBN > tile.T_k || (kCausal && col0 + kBN - 1 > row_first + diag);
      };
      const int first = tile.n_blocks - own_blocks();
      for (int i = 0; i < first; ++i) skip(i);
      if (first < tile.n_blocks) {
        if (needs_mask(first)) {
          step<true, false>(first);
        } else {
          step<false, false>(first);
        }
        int i = first + 1;
        for (; i < tile.n_blocks && needs_mask(i); ++i) step<true, true>(i);
        for (; i < tile.n_blocks; ++i) step<false, true>(i);
        finish();
      } else {
        // finish()'s turn; every stage was freed by skip().
        wait_turn();
        if (!is_last_consumer()) pass_turn();
      }
    }
    write_output();
    // Q's buffer (and the O staged in it) is no longer read by this warp: the Q of the
    // buffer's next tile may land.
    __syncwarp();
    if (arrives) sm90::mbar_arrive(sm.q_empty(qb));
  }

  // Normalise, write O and the log-sum-exp.
  __device__ __forceinline__ void write_output() const {
    const int lane = static_cast<int>(threadIdx.x % 32);
    T* o = output_base();
    float lse_val[2];
    if constexpr (Traits::kStagedEpilogue) {
      float inv[2];
#pragma unroll
      for (int r = 0; r < 2; ++r) inv[r] = row_inverse_and_lse(r, lse_val[r]);
      store_o_staged(inv, o);
    } else {
      // Two elements per store, straight from the accumulators.
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const float inv = row_inverse_and_lse(r, lse_val[r]);
        const int r_abs = tile.m0 + row_base + 8 * r;
        if (r_abs < tile.T_q) {
          T* o_row = o + static_cast<std::int64_t>(r_abs) * p.o_row_stride + col_lane;
#pragma unroll
          for (int j = 0; j < kOAcc / 4; ++j) {
            *reinterpret_cast<std::uint32_t*>(o_row + 8 * j) =
                pack2<T>(acc_o[4 * j + 2 * r] * inv, acc_o[4 * j + 2 * r + 1] * inv);
          }
        }
      }
    }
    if (p.lse != nullptr && (lane & 3) == 0) {
      // [B, H, T_q]; a packed batch's is [H, total_q] (flash-attention's varlen layout).
      float* lse = p.lse + (p.cu_seqlens_q != nullptr
                                ? static_cast<std::int64_t>(tile.h) * p.total_q + tile.q_row0
                                : (static_cast<std::int64_t>(tile.b) * p.H + tile.h) * p.T_q);
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const int r_abs = tile.m0 + row_base + 8 * r;
        if (r_abs < tile.T_q) lse[r_abs] = lse_val[r];
      }
    }
  }

  // Row 0 of the tile's sequence in O, head tile.h (a packed batch's batch strides are 0).
  __device__ __forceinline__ T* output_base() const {
    return static_cast<T*>(p.o) + tile.b * p.o_batch_stride +
           static_cast<std::int64_t>(tile.q_row0) * p.o_row_stride + tile.h * p.o_head_stride;
  }

  // Row half r's 1 / sum (0 for a row that saw no key) and its log-sum-exp.
  __device__ __forceinline__ float row_inverse_and_lse(int r, float& lse) const {
    float l = row.sum[r];
    l += __shfl_xor_sync(0xffffffffu, l, 1);
    l += __shfl_xor_sync(0xffffffffu, l, 2);
    const float inv = l > 0.f ? 1.f / l : 0.f;
    lse = l > 0.f ? row.max[r] * p.scale + __logf(l) : -INFINITY;
    return inv;
  }

  // Through this warpgroup's 64 rows of the Q tile: only its own GEMMs read them, and its
  // last S is done. The accumulators go in at the swizzled positions Q came in at, a named
  // barrier (ids past the turn-taking ones) closes the warpgroup's slice, then each thread
  // copies whole 16-byte chunks out, consecutive threads consecutive columns of a row.
  __device__ __forceinline__ void store_o_staged(const float (&inv)[2], T* o) const {
    constexpr int kBM = Traits::kBlockM;
    constexpr int kChunks = kD / 8;  // 16-byte chunks per row
    const int in_wg = static_cast<int>(threadIdx.x % 128);
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const int row = row_base + 8 * r;
#pragma unroll
      for (int j = 0; j < kOAcc / 4; ++j) {
        const std::uint32_t addr = q_tile + sm90::sw128_offset<kBM>(row, j) + 2 * col_lane;
        const std::uint32_t v =
            pack2<T>(acc_o[4 * j + 2 * r] * inv[r], acc_o[4 * j + 2 * r + 1] * inv[r]);
        asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(addr), "r"(v) : "memory");
      }
    }
    if constexpr (Traits::kTmaStore) {
      if (p.cu_seqlens_q == nullptr) {
        // The copy engine stores the warpgroup's 64 rows, box by box (rows past T_q are
        // clipped); its thread waits until they are read out before its warp frees the buffer.
        sm90::fence_smem_for_async_proxy();
        sm90::named_barrier_sync(1 + Traits::kConsumers + cwg, 128);
        if (in_wg == 0) {
#pragma unroll
          for (int c = 0; c < kD / 64; ++c) {
            sm90::tma_store_4d(o_map, q_tile + c * kBM * 128 + cwg * 64 * 128, 64 * c,
                               tile.q_row0 + tile.m0 + cwg * 64, tile.h, tile.map_b);
          }
          sm90::bulk_commit_group();
          sm90::bulk_wait_group_read<0>();
        }
        return;
      }
    }
    sm90::named_barrier_sync(1 + Traits::kConsumers + cwg, 128);
#pragma unroll
    for (int it = 0; it < 64 * kChunks / 128; ++it) {
      const int idx = it * 128 + in_wg;
      const int row = cwg * 64 + idx / kChunks;
      const int c = idx % kChunks;
      if (tile.m0 + row < tile.T_q) {
        uint4 v;
        asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                     : "r"(q_tile + sm90::sw128_offset<kBM>(row, c))
                     : "memory");
        *reinterpret_cast<uint4*>(o + static_cast<std::int64_t>(tile.m0 + row) * p.o_row_stride +
                                  c * 8) = v;
      }
    }
    // Every warp of the warpgroup is done reading the staged O before any writes the next
    // tile's (a persistent CTA); the q_empty / TMA / q_full chain orders it too, but not in a
    // way racecheck follows.
    sm90::named_barrier_sync(1 + Traits::kConsumers + cwg, 128);
  }
};

// Query tile t of the grid's order (common/tile_order.h: L2 sections of (batch, head) pairs,
// heaviest first within each) and the key tiles it visits.
template <typename Traits, bool kCausal>
__device__ __forceinline__ FwdTile tile_at(const Fa3FwdArgs& a, int t) {
  constexpr int kBM = Traits::kBlockM;
  constexpr int kBN = Traits::kBlockN;
  const AttnParams& p = a.p;
  FwdTile tile;
  const int num_m = (p.T_q + kBM - 1) / kBM;
  const QueryTilePlace at = l2_section_tile(t, num_m, p.B * p.H, a.l2_section);
  tile.h = at.bh % p.H;
  tile.b = at.bh / p.H;
  tile.h_kv = tile.h / (p.H / p.H_kv);
  tile.m0 = at.m_block * kBM;
  tile.T_q = p.T_q;
  tile.T_k = p.T_k;
  tile.q_row0 = tile.k_row0 = 0;
  tile.map_b = tile.b;
  tile.empty = false;
  tile.n_blocks = 0;
  if (p.cu_seqlens_q != nullptr) {
    tile.q_row0 = p.cu_seqlens_q[tile.b];
    tile.k_row0 = p.cu_seqlens_k[tile.b];
    tile.T_q = p.cu_seqlens_q[tile.b + 1] - tile.q_row0;
    tile.T_k = p.cu_seqlens_k[tile.b + 1] - tile.k_row0;
    tile.map_b = 0;
    // The tiles cover the longest sequence; past this one's rows there is nothing to do.
    tile.empty = tile.m0 >= tile.T_q;
    if (tile.empty) return tile;
  }
  // Bottom-right causal alignment: row i sees keys j <= i + (T_k - T_q).
  tile.n_blocks = (tile.T_k + kBN - 1) / kBN;
  if (kCausal) {
    const int last_visible = min(tile.m0 + kBM, tile.T_q) - 1 + mask_diag(tile);
    tile.n_blocks = last_visible < 0 ? 0 : min(tile.n_blocks, last_visible / kBN + 1);
  }
  return tile;
}

// The tile CTA `first` of a persistent grid of `step` CTAs does in wave `wave`.
__device__ __forceinline__ int snake_tile(int first, int step, int wave) {
  return wave * step + ((wave & 1) ? step - 1 - first : first);
}

// kPersistent: the grid holds at most one CTA per multiprocessor, and CTA c does one tile of
// each wave of gridDim.x tiles in the order above: tile c of the even waves, tile
// gridDim.x - 1 - c of the odd ones (a snake, so that under the causal mask the CTA that takes
// a wave's heaviest tile takes the next wave's lightest). Barriers and stages carry on from one
// tile to the next, so the producer loads the next tile's first K and V (and its Q, once the
// consumers' epilogue is done with the Q buffer) while the consumers finish this one: a short
// tile's prologue and epilogue no longer leave the tensor cores idle. Without it, one CTA per tile.
template <typename Traits, typename T, bool kCausal, bool kPersistent = false>
__global__ void __launch_bounds__(Traits::kThreads, 1)
    fa3_fwd_kernel(const __grid_constant__ Fa3FwdArgs args) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  const AttnParams& p = args.p;
  extern __shared__ unsigned char smem_raw[];
  const FwdSmem<Traits> sm{(smem_u32(smem_raw) + 1023u) & ~1023u};
  const int num_tiles = (p.T_q + Traits::kBlockM - 1) / Traits::kBlockM * p.B * p.H;
  const int first = static_cast<int>(blockIdx.x);
  const int step = static_cast<int>(gridDim.x);
  // One CTA per tile: the CTA of an empty tile (past its sequence) leaves at once.
  FwdTile own{};
  if constexpr (!kPersistent) {
    own = tile_at<Traits, kCausal>(args, first);
    if (own.empty) return;
  }

  const int tid = static_cast<int>(threadIdx.x);
  if (tid == 0) {
    constexpr std::uint32_t kConsumerWarps = 4 * Traits::kConsumers;
#pragma unroll
    for (int qb = 0; qb < Traits::kQBuffers; ++qb) {
      sm90::mbar_init(sm.q_full(qb), 1);
      sm90::mbar_init(sm.q_empty(qb), kConsumerWarps);
    }
#pragma unroll
    for (int st = 0; st < Traits::kStages; ++st) {
      sm90::mbar_init(sm.k_full(st), 1);
      sm90::mbar_init(sm.v_full(st), 1);
      sm90::mbar_init(sm.k_empty(st), kConsumerWarps);
      sm90::mbar_init(sm.v_empty(st), kConsumerWarps);
    }
    sm90::mbar_fence_init();
  }
  __syncthreads();

  // Both roles walk the same tiles and keep the same running counts (FwdTile::kv_base, q_iter).
  int kv_base = 0, q_iter = 0;
  // Broadcast from lane 0: the compiler then knows the index is the same in every lane, and
  // what the consumers derive from it (the key tiles a warpgroup skips) stays warp-uniform.
  const int wg = __shfl_sync(0xffffffffu, tid / 128, 0);
  if (wg == 0) {
    sm90::setmaxnreg_dec<Traits::kProducerRegs>();
    if (tid == 0) {
      if constexpr (kPersistent) {
        for (int wave = 0; wave * step < num_tiles; ++wave) {
          const int t = snake_tile(first, step, wave);
          if (t >= num_tiles) continue;  // the last wave's missing tiles
          FwdTile tile = tile_at<Traits, kCausal>(args, t);
          if (tile.empty) continue;  // both roles skip it
          tile.kv_base = kv_base;
          tile.q_iter = q_iter++;
          produce(args, sm, tile);
          kv_base += tile.n_blocks;
        }
      } else {
        produce(args, sm, own);
      }
    }
  } else {
    sm90::setmaxnreg_inc<Traits::kConsumerRegs>();
    const int in_wg = tid % 128;
    auto consume = [&](const FwdTile& tile) {
      Consumer<Traits, T, kCausal> c{p, sm, tile};
      c.cwg = wg - 1;
      c.row_base = c.cwg * 64 + (in_wg / 32) * 16 + (in_wg % 32) / 4;
      c.col_lane = 2 * (in_wg % 4);
      c.arrives = in_wg % 32 == 0;
      c.scale_log2 = p.scale * 1.4426950408889634f;
      c.o_map = &args.o;
      c.run();
    };
    if constexpr (kPersistent) {
      for (int wave = 0; wave * step < num_tiles; ++wave) {
        const int t = snake_tile(first, step, wave);
        if (t >= num_tiles) continue;
        FwdTile tile = tile_at<Traits, kCausal>(args, t);
        if (tile.empty) continue;
        tile.kv_base = kv_base;
        tile.q_iter = q_iter++;
        consume(tile);
        kv_base += tile.n_blocks;
      }
    } else {
      consume(own);
    }
  }
#else
  (void)args;
#endif
}

}  // namespace fa3
}  // namespace fa2b
