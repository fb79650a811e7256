// SPDX-License-Identifier: Apache-2.0
// FlashAttention-2 forward kernel (Dao 2023) on mma.sync tensor cores.
//
// One CTA per (query tile, batch, head). Q is staged once; K and V tiles stream through shared
// memory in a two-stage cp.async pipeline: V of tile n loads while Q*K^T of tile n runs, and K
// of tile n-1 loads while softmax and P*V of tile n run (kKVStages = 1); or, with K and V
// double-buffered (kKVStages = 2), K and V of tile n-1 load during all of tile n's work. Scores,
// the running max/sum and the O accumulator never leave registers; P is repacked from the score
// accumulators straight into the A operand of the P*V mma. Key tiles are walked from the last to
// the first so that the only tiles needing a mask (the T_k tail and the causal diagonal) come first
// and the loop body after them is mask-free (under a sliding window the last few, at the window's
// left edge, are masked again).
//
// The steps are named pieces the backward and the tuning variants share the vocabulary of:
// qk_scores and pv_accumulate (fa2_fwd_gemm.cuh), tile_needs_mask and mask_scores
// (fa2_fwd_mask.cuh), online_softmax (fa2_fwd_softmax.cuh); this file holds the CTA's geometry,
// the loads, the pipeline around them and the epilogue (which stays inline: as a function it
// shifted the register allocation of the 255-register tiles into spills, docs/performance.md).
//
// kMasked: causal masking and / or a sliding window (common/attn_mask.h), the bounds read from
// the params. Key tiles outside every row's window are never visited, so a small window costs
// O(window) per CTA, not O(T_k): the key axis is re-based at the first tile any row of the CTA
// sees (K, V pointers moved there, T_k and diag counted from there), which keeps the loop bound
// at 0 instead of a lower bound held in a register across the loop (one register more spills
// the 255-register D = 128 tile).
//
// kSplit: split-KV ("flash-decoding", fa2_split_kv.h). The grid holds split.n_splits copies of
// the unsplit grid, split-major (the CTAs of one split and neighbouring heads of a KV group run
// together and share that slice of K/V in L2). A CTA walks only its split's share of the key
// tiles its rows see (the same re-basing moves the key axis to the share's first tile, so masks
// and the T_k tail hold per split), and writes its rows normalised by their own sums, in
// float32, with their log-sum-exps (-inf for a row that sees no key of the split) into the
// workspace; fa2_fwd_combine.cuh merges the splits into O and LSE.
//
// kPacked: GQA packing for decode shapes. One CTA (per split) serves a whole KV group: its
// query tile holds the group's G = H / H_kv query heads x T_q rows (G * T_q <= kBlockM, checked
// by the launcher), row r being query row r % T_q of query head h_kv * G + r / T_q, so every
// K/V tile is read once per group instead of once per query head. Only the addressing of Q and
// O and the mask's row index change; the LSE and the split workspace stay linear in r.
//
// Paged KV caches (AttnParams::block_table) are read by the kSplit and kPacked instantiations
// only, tested at run time; the launcher sends every paged forward, whatever T_q, through them
// (fa2_fwd.cu), so the plain ones stay free of the table. Only the K/V tile loads change
// (load_paged_rows finds each key row through the table, zero-filling past T_k as load_tile
// does); masks, the split's share and the epilogue see the same key axis as a contiguous cache.
//
// Variable-length batches (AttnParams::cu_seqlens_q / seqused, common/varlen.h) run the kVarlen
// instantiation of the masked kernel (a non-causal batch masks the sequence's key tail only), so
// the dense instantiations compile as if varlen did not exist; each CTA reads its sequence's
// lengths once at the start, the grid covering the longest. Its key axis is the sequence's (t_k,
// diag of a seq_q x seq_k attention), so the key loop and the masks run exactly as for a dense
// batch's T_k tail. A packed sequence starts at row cu_seqlens_q[b] (cu_seqlens_k[b]) of tensors
// whose batch strides are 0, and a CTA past its last row exits; a padded batch's padding rows are
// computed against the sequence's keys (finite, never compared). Split-KV and GQA packing refuse
// varlen (the launcher).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "common/attn_mask.h"
#include "common/attn_params.h"
#include "common/cp_async.cuh"
#include "common/grid_dependency.cuh"
#include "common/mma.cuh"
#include "common/smem_swizzle.cuh"
#include "common/tile_io.cuh"
#include "common/varlen.h"
#include "fa2/fa2_fwd_gemm.cuh"
#include "fa2/fa2_fwd_mask.cuh"
#include "fa2/fa2_fwd_softmax.cuh"
#include "fa2/fa2_split_kv.h"
#include "fa2/fa2_traits.h"

namespace fa2b {
namespace fa2 {

// A varlen array element read where it is used: the compiler cannot reuse the value loaded at
// the CTA's start, which it would hold in a register across the key loop (the 255-register
// tiles spill for one more).
__device__ __forceinline__ int load_unhoisted(const int* ptr) {
  return *static_cast<const volatile int*>(ptr);
}

// stored_rows_q (common/varlen.h) again after the key loop, without holding it across it.
__device__ __forceinline__ int rows_end_unhoisted(const AttnParams& p, int b) {
  return p.cu_seqlens_q != nullptr
             ? load_unhoisted(p.cu_seqlens_q + b + 1) - load_unhoisted(p.cu_seqlens_q + b)
             : p.T_q;
}

template <typename Traits, typename T, bool kMasked, bool kSplit = false, bool kPacked = false,
          bool kPadD = false, bool kVarlen = false>
__global__ void __launch_bounds__(Traits::kThreads, Traits::kMinBlocks)
    fa2_fwd_kernel(const AttnParams p, const Fa2Order order, const Fa2SplitKv split) {
  static_assert(!(kPadD && (kSplit || kPacked)), "padded head dims run the plain forward only");
  static_assert(!kVarlen || (kMasked && !kSplit && !kPacked),
                "variable-length batches run the masked plain forward only");
  // The combine kernel after a split grid is a programmatic dependent launch: let it be scheduled
  // now, so its launch overlaps this grid (it waits for the grid's end before reading).
  if constexpr (kSplit) grid_dependency_launch_dependents();
  constexpr int kBM = Traits::kBlockM;
  constexpr int kBN = Traits::kBlockN;
  constexpr int kD = Traits::kHeadDim;
  constexpr int kMT = Traits::kMTiles;
  constexpr int kNT = kBN / 8;  // 8-wide key tiles of S
  constexpr int kDT = kD / 8;   // 8-wide d tiles of O
  constexpr int kPitch = Traits::kPitch;
  constexpr int kQRegs = Traits::kQRegSteps;
  constexpr int kQFrags = kQRegs > 0 ? kQRegs : 1;
  constexpr int kStages = Traits::kKVStages;
  constexpr std::uint32_t kStageBytes = kBN * kPitch * 2;
  using Sw = SwizzledTile<kD>;
  // kPadD: p.D < kD (fa2_padded_head_dim); only the first p.D / 8 16-byte chunks of a row are
  // loaded (the rest zero-filled) and stored.
  const int live_chunks = kPadD ? p.D / 8 : kD / 8;

  extern __shared__ __align__(128) unsigned char smem_raw[];
  T* sQ = reinterpret_cast<T*>(smem_raw);
  T* sK = sQ + kBM * kPitch;
  T* sV = sK + kStages * kBN * kPitch;

  const int tid = static_cast<int>(threadIdx.x);
  const int warp = tid / 32;
  const int lane = tid % 32;
  const int g = lane >> 2;  // mma fragment row within an 8-row group
  const int t = lane & 3;   // mma fragment column pair

  // Everything lives in grid.x (no 65535 limit on y/z). Head-major: m-blocks of one head are
  // adjacent so the CTAs resident at once share K/V in L2; within a head the heaviest (last,
  // under the causal mask) m-block goes first so the tail of the grid is made of short CTAs.
  // Heavy-first: all heads' last m-blocks first, then the next-to-last ones, and so on, so the
  // whole grid runs longest-first (the better balance when the grid is a few waves).
  const int num_m = kPacked ? 1 : (p.T_q + kBM - 1) / kBM;
  // Packed launches walk (batch, KV head) pairs instead of (batch, query head) ones. This and
  // `rows` below are read where used, so the unpacked instantiations compile exactly as before.
  auto heads = [&]() -> int {
    if constexpr (kPacked) return p.H_kv;
    return p.H;
  };
  // Split launches: blockIdx.x = split index * (unsplit grid) + the unsplit CTA index. Read
  // where used, so the unsplit instantiation compiles exactly as it did before splits existed.
  const unsigned unsplit_ctas =
      static_cast<unsigned>(num_m) * static_cast<unsigned>(p.B) * static_cast<unsigned>(heads());
  const int split_idx = kSplit ? static_cast<int>(blockIdx.x / unsplit_ctas) : 0;
  auto cta_index = [&]() -> unsigned {
    if constexpr (kSplit) return blockIdx.x % unsplit_ctas;
    return blockIdx.x;
  };
  int m_block, bh;
  if (order == Fa2Order::kHeavyFirst) {
    const unsigned num_bh = static_cast<unsigned>(p.B) * static_cast<unsigned>(heads());
    m_block = num_m - 1 - static_cast<int>(cta_index() / num_bh);
    bh = static_cast<int>(cta_index() % num_bh);
  } else {
    m_block = num_m - 1 - static_cast<int>(cta_index() % static_cast<unsigned>(num_m));
    bh = static_cast<int>(cta_index() / static_cast<unsigned>(num_m));
  }
  const int h = bh % heads();  // packed: the KV head
  const int b = bh / heads();
  const int h_kv = kPacked ? h : h / (p.H / p.H_kv);
  const int h_q = kPacked ? h * (p.H / p.H_kv) : h;  // query head of the tile's row 0
  const int m0 = m_block * kBM;
  // Rows of the (batch, head) or (batch, KV group) the tile's rows index into.
  auto rows = [&]() -> int {
    if constexpr (kPacked) return (p.H / p.H_kv) * p.T_q;
    return p.T_q;  // the dense rows; a varlen CTA's own are row_end, rows_stored
  };

  // A paged KV cache: only the decode instantiations test for one (the launcher routes every
  // paged forward to them), so the plain ones compile exactly as without pages. k and v then
  // point at the KV head's row 0 of page 0 and stay there: the key axis' re-basing below moves
  // t_k only, and the loads find each row through the page table (load_kv).
  const bool paged = (kSplit || kPacked) && p.block_table != nullptr;
  const int kv_b = paged ? 0 : b;
  const T* q = static_cast<const T*>(p.q) + b * p.q_batch_stride + h_q * p.q_head_stride;
  const T* k = static_cast<const T*>(p.k) + kv_b * p.k_batch_stride + h_kv * p.k_head_stride;
  const T* v = static_cast<const T*>(p.v) + kv_b * p.v_batch_stride + h_kv * p.v_head_stride;
  T* o = static_cast<T*>(p.o) + b * p.o_batch_stride + h_q * p.o_head_stride;
  // The sequence's lengths and the rows it stores: T_q, T_k and T_q for a dense batch. Only the
  // kVarlen instantiations read them, so the dense ones compile exactly as without varlen.
  int seq_q = p.T_q, seq_k = p.T_k, row_end = p.T_q;
  if constexpr (kVarlen) {
    seq_q = sequence_length_q(p, b);
    seq_k = sequence_length_k(p, b);
    row_end = stored_rows_q(p, b);
    if (m0 >= row_end) return;  // the whole CTA: a packed sequence shorter than the longest
    if (p.cu_seqlens_q != nullptr) {
      q += static_cast<std::int64_t>(p.cu_seqlens_q[b]) * p.q_row_stride;
      o += static_cast<std::int64_t>(p.cu_seqlens_q[b]) * p.o_row_stride;
      k += static_cast<std::int64_t>(p.cu_seqlens_k[b]) * p.k_row_stride;
      v += static_cast<std::int64_t>(p.cu_seqlens_k[b]) * p.v_row_stride;
    }
  }

  // Bottom-right alignment: row i sees keys i + diag - left .. i + diag + right (mask_reach:
  // causal is right = 0; an unbounded side reaches past every key). Key columns below are
  // counted from key0, the first column of the first tile a row of this CTA sees (0 without a
  // window): k and v point at key0, t_k = T_k - key0 and diag is relative to key0 too.
  int diag = seq_k - seq_q;
  int t_k = seq_k;
  int n_blocks = (seq_k + kBN - 1) / kBN;
  if (kMasked) {
    const MaskReach reach = mask_reach(p);
    const int last_visible = min(m0 + kBM, row_end) - 1 + diag + reach.right;
    n_blocks = last_visible < 0 ? 0 : min(n_blocks, last_visible / kBN + 1);
    const int first_visible = m0 + diag - reach.left;
    const int key0 = first_visible > 0 ? first_visible / kBN * kBN : 0;
    n_blocks -= key0 / kBN;
    if (!paged) {
      k += static_cast<std::int64_t>(key0) * p.k_row_stride;
      v += static_cast<std::int64_t>(key0) * p.v_row_stride;
    }
    t_k -= key0;
    diag -= key0;
  }
  if constexpr (kSplit) {
    // This split's share of the n_blocks tiles (counted from key0): ceil(n_blocks / n_splits)
    // tiles from split_idx times that on; the last shares may be short or empty.
    n_blocks = max(n_blocks, 0);
    const int share = (n_blocks + split.n_splits - 1) / split.n_splits;
    const int first = split_idx * share;
    n_blocks = max(0, min(share, n_blocks - first));
    if (n_blocks > 0) {
      const int split_key0 = first * kBN;
      if (!paged) {
        k += static_cast<std::int64_t>(split_key0) * p.k_row_stride;
        v += static_cast<std::int64_t>(split_key0) * p.v_row_stride;
      }
      t_k -= split_key0;
      diag -= split_key0;
    }
  }

  const float scale_log2 = p.scale * 1.4426950408889634f;

  float acc_o[kMT][kDT][4];
  float row_m[kMT][2];
  float row_l[kMT][2];
#pragma unroll
  for (int mi = 0; mi < kMT; ++mi) {
#pragma unroll
    for (int j = 0; j < kDT; ++j) {
#pragma unroll
      for (int e = 0; e < 4; ++e) acc_o[mi][j][e] = 0.f;
    }
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      row_m[mi][r] = -INFINITY;
      row_l[mi][r] = 0.f;
    }
  }

  // Per-lane ldmatrix geometry (see mma.cuh for the fragment layouts). Every tile row base is a
  // multiple of 8, so the swizzle key row % 8 is lane % 8 for all three operands.
  const int warp_row0 = warp * kMT * 16;
  const LdsmBases<kPitch> q_ld(smem_u32(sQ) + warp_row0 * kPitch * 2, lane & 15, lane >> 4);
  const LdsmBases<kPitch> k_ld(smem_u32(sK), (lane & 7) + ((lane >> 4) << 3), (lane >> 3) & 1);
  const LdsmBases<kPitch> v_ld(smem_u32(sV), (lane & 7) + (((lane >> 3) & 1) << 3), lane >> 4);

  std::uint32_t q_frag[kMT][kQFrags][4];

  // Key tile n of K or V (`src`: k or v) into `dst`. Paged, the tile's first key counted from
  // the sequence's key 0 is T_k - t_k + n * kBN (the re-basing subtracted key0 and the split's
  // first key from t_k), so no offset is held across the loop; the page stride is the batch
  // stride (AttnParams). With two K/V stages the pages of tile n are fetched while tile n + 1's
  // copies are issued (fetch_pages below), so no table load sits before a copy; with one stage
  // K and V of a tile are copied at different points and each copy fetches its pages first.
  [[maybe_unused]] int tile_pages[PagedTileRows<Traits, kBN>::kPasses];
  auto fetch_pages = [&](int n) {
    if constexpr (kSplit || kPacked) {
      if (paged && n >= 0) {
        fetch_tile_pages<Traits, kBN>(tile_pages, p.block_table + b * p.pages_per_seq,
                                      __ffs(p.page_size) - 1, p.T_k - t_k + n * kBN, p.T_k, tid);
      }
    }
  };
  auto load_kv = [&](T* dst, const T* src, std::int64_t row_ld, std::int64_t page_ld, int n) {
    if constexpr (kSplit || kPacked) {
      if (paged) {
        if constexpr (kStages == 1) fetch_pages(n);
        load_paged_rows<Traits, kBN>(dst, src, tile_pages, p.page_size, page_ld, row_ld,
                                     p.T_k - t_k + n * kBN, p.T_k, tid);
        return;
      }
    }
    (void)page_ld;
    load_tile<Traits, kBN, T, kPadD>(dst, src, row_ld, n * kBN, t_k, tid, live_chunks);
  };

  if (n_blocks > 0) {
    if constexpr (kPacked) {
      load_packed_rows<Traits, kBM>(sQ, q, p.q_head_stride, p.q_row_stride, p.T_q, rows(), tid);
    } else {
      load_tile<Traits, kBM, T, kPadD>(sQ, q, p.q_row_stride, m0, row_end, tid, live_chunks);
    }
    cp_async_commit();
    int n = n_blocks - 1;
    const std::uint32_t last_off = kStages == 2 ? (n & 1) * kStageBytes : 0;
    if constexpr (kStages == 2) fetch_pages(n);
    load_kv(sK + last_off / 2, k, p.k_row_stride, p.k_batch_stride, n);
    if constexpr (kStages == 2) {
      load_kv(sV + last_off / 2, v, p.v_row_stride, p.v_batch_stride, n);
      fetch_pages(n - 1);
    }
    cp_async_commit();

    if constexpr (Traits::kQInRegs) {
      cp_async_wait<1>();
      __syncthreads();
#pragma unroll
      for (int mi = 0; mi < kMT; ++mi) {
#pragma unroll
        for (int ks = 0; ks < kQRegs; ++ks) {
          ldmatrix_x4(q_frag[mi][ks], q_ld.at(mi * 16, 2 * ks));
        }
      }
    }

    for (; n >= 0; --n) {
      // Byte offset of stage n's K and V buffers (always 0 with one stage).
      const std::uint32_t kv_off = kStages == 2 ? (n & 1) * kStageBytes : 0;
      cp_async_wait<0>();
      if constexpr (kStages == 1) {
        __syncthreads();  // K_n landed; every warp is done reading V_{n+1}
        load_kv(sV, v, p.v_row_stride, p.v_batch_stride, n);
        cp_async_commit();
      } else {
        __syncthreads();  // K_n, V_n landed; every warp is done with tile n+1's buffers
        if (n > 0) {
          const std::uint32_t next_off = kStageBytes - kv_off;
          load_kv(sK + next_off / 2, k, p.k_row_stride, p.k_batch_stride, n - 1);
          load_kv(sV + next_off / 2, v, p.v_row_stride, p.v_batch_stride, n - 1);
          cp_async_commit();
          fetch_pages(n - 2);
        }
      }

      float s[kMT][kNT][4];
      qk_scores<Traits, T>(s, q_frag, q_ld, k_ld, kv_off);

      const int col0 = n * kBN;
      if (tile_needs_mask<Traits, kMasked>(p, col0, t_k, m0, diag)) {
        mask_scores<Traits, kMasked, kPacked>(s, p, col0, t_k, m0, diag);
      }

      if constexpr (kStages == 1) {
        cp_async_wait<0>();
        __syncthreads();  // V_n landed; every warp is done reading K_n
        if (n > 0) {
          load_kv(sK, k, p.k_row_stride, p.k_batch_stride, n - 1);
          cp_async_commit();
        }
      }

      online_softmax<Traits>(s, row_m, row_l, acc_o, scale_log2);
      pv_accumulate<Traits, T>(acc_o, s, v_ld, kv_off);
    }
  }

  // The rows this CTA stores, read again here rather than held across the key loop.
  const int rows_stored = kPacked ? rows() : kVarlen ? rows_end_unhoisted(p, b) : p.T_q;

  // Epilogue: normalise, stage this warp's rows in its own slice of sQ (only this warp ever
  // reads that slice), then store 16-byte chunks so the global writes are coalesced.
  float lse_val[kMT][2];
#pragma unroll
  for (int mi = 0; mi < kMT; ++mi) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float l = row_l[mi][r];
      l += __shfl_xor_sync(0xffffffffu, l, 1);
      l += __shfl_xor_sync(0xffffffffu, l, 2);
      const float inv = l > 0.f ? 1.f / l : 0.f;
      lse_val[mi][r] = l > 0.f ? row_m[mi][r] * p.scale + __logf(l) : -INFINITY;
#pragma unroll
      for (int j = 0; j < kDT; ++j) {
        acc_o[mi][j][2 * r] *= inv;
        acc_o[mi][j][2 * r + 1] *= inv;
      }
    }
  }
  if constexpr (kSplit) {
    // The split's rows straight from the accumulators: each quad writes 8 consecutive floats
    // of a row per d tile. The workspace is small (decode: a few rows per head), so the
    // coalescing the staged epilogue below buys does not matter here.
    const std::int64_t row_base =
        ((static_cast<std::int64_t>(split_idx) * p.B + b) * p.H + h_q) * p.T_q;
#pragma unroll
    for (int mi = 0; mi < kMT; ++mi) {
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const int row = m0 + warp_row0 + mi * 16 + g + 8 * r;
        if (row < rows_stored) {
          float* o_row = split.o_partial + (row_base + row) * kD;
#pragma unroll
          for (int j = 0; j < kDT; ++j) {
            *reinterpret_cast<float2*>(o_row + j * 8 + 2 * t) =
                make_float2(acc_o[mi][j][2 * r], acc_o[mi][j][2 * r + 1]);
          }
          if (t == 0) split.lse_partial[row_base + row] = lse_val[mi][r];
        }
      }
    }
    return;
  }
  __syncwarp();
#pragma unroll
  for (int mi = 0; mi < kMT; ++mi) {
#pragma unroll
    for (int j = 0; j < kDT; ++j) {
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const int row = warp_row0 + mi * 16 + g + 8 * r;
        *reinterpret_cast<std::uint32_t*>(sQ + Sw::offset(row, j * 8) + 2 * t) =
            pack2<T>(acc_o[mi][j][2 * r], acc_o[mi][j][2 * r + 1]);
      }
    }
  }
  __syncwarp();
  constexpr int kChunks = kD / 8;
  constexpr int kWarpChunks = kMT * 16 * kChunks;
#pragma unroll
  for (int it = 0; it < (kWarpChunks + 31) / 32; ++it) {
    const int idx = it * 32 + lane;
    if (kWarpChunks % 32 != 0 && idx >= kWarpChunks) break;
    const int row = warp_row0 + idx / kChunks;
    const int c = idx % kChunks;
    if (kPadD && c >= live_chunks) continue;
    if constexpr (kPacked) {
      if (row < rows_stored) {
        *reinterpret_cast<uint4*>(o + static_cast<std::int64_t>(row / p.T_q) * p.o_head_stride +
                                  static_cast<std::int64_t>(row % p.T_q) * p.o_row_stride + c * 8) =
            *reinterpret_cast<const uint4*>(sQ + Sw::offset(row, c * 8));
      }
    } else if (m0 + row < rows_stored) {
      *reinterpret_cast<uint4*>(o + static_cast<std::int64_t>(m0 + row) * p.o_row_stride + c * 8) =
          *reinterpret_cast<const uint4*>(sQ + Sw::offset(row, c * 8));
    }
  }
  if (p.lse != nullptr && t == 0) {
    // A packed batch's LSE is [H, total_q] (flash-attention's varlen layout).
    float* lse =
        p.lse + (kVarlen && p.cu_seqlens_q != nullptr
                     ? static_cast<std::int64_t>(h_q) * load_unhoisted(p.cu_seqlens_q + p.B) +
                           load_unhoisted(p.cu_seqlens_q + b)
                     : (static_cast<std::int64_t>(b) * p.H + h_q) * p.T_q);
#pragma unroll
    for (int mi = 0; mi < kMT; ++mi) {
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const int row = m0 + warp_row0 + mi * 16 + g + 8 * r;
        if (row < rows_stored) lse[row] = lse_val[mi][r];
      }
    }
  }
}

}  // namespace fa2
}  // namespace fa2b
