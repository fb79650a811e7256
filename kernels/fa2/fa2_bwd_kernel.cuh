// SPDX-License-Identifier: Apache-2.0
// FlashAttention-2 backward kernels (Dao 2023, algorithm 2) on mma.sync tensor cores.
//
// fa2_bwd_preprocess: D_i = rowsum(dO o O) for every query row, and the fp32 dQ accumulator
// zeroed (the per-row pieces are common/bwd_row_passes.cuh's). fa2_bwd_kernel: one CTA per (key
// block, KV head, batch); K and V stay in shared memory, dK and dV in registers, while the CTA
// walks every query block of every query head of its group (so grouped-query dK/dV are summed
// on chip). Per query block it recomputes P = exp(S * scale - LSE) from the saved LSE, forms
// dS = P o (dP - D_i), accumulates dV += P^T dO and dK += dS^T Q, and adds dQ += dS K into the
// fp32 accumulator with atomics (other key blocks add to the same rows). The post-pass,
// scale * accumulator -> dQ, is bwd_convert_dq (common/bwd_row_passes.cuh, shared with fa3).
//
// kMasked: causal masking and / or a sliding window (common/attn_mask.h); `reach` is
// mask_reach(p.fwd), computed by the launcher so that the kernel reads the two bounds from the
// constant bank instead of recomputing their clamps. A CTA visits only the query blocks with a
// row that sees one of its keys, so a small window costs O(window) per key block.
//
// kVarlen: a variable-length batch (AttnParams::cu_seqlens_q / seqused, common/varlen.h), masked
// instantiations only (the key tail of a sequence is a mask). Each CTA reads its sequence's
// lengths once and runs a seq_q x seq_k attention over its rows (a packed sequence's start at
// cu_seqlens[b]); the padding rows of a padded batch neither see keys nor are seen: their dQ,
// and a padded sequence's dK and dV past its length, are written as zeros. The workspace keeps
// the dense [B, H, T_q] rows (T_q the longest sequence) for every packing; the LSE is read in
// its packing's layout ([H, total_q] when packed).
//
// kPadD: a head dim p.D < kHeadDim runs in kHeadDim's tile (fa2_padded_head_dim, as the
// forward's padded path): Q, dO, K and V columns past p.D load as zeros, so they add nothing to
// S, dP, dV or dK, and dK and dV store only the first p.D columns. The fp32 dQ accumulator keeps
// kHeadDim-wide rows (its padding columns stay zero: K's are), and the post-pass writes p.D.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "common/attn_mask.h"
#include "common/attn_params.h"
#include "common/bwd_row_passes.cuh"
#include "common/cp_async.cuh"
#include "common/fast_exp2.cuh"
#include "common/mma.cuh"
#include "common/smem_swizzle.cuh"
#include "common/tile_io.cuh"
#include "common/unhoisted_index.cuh"
#include "common/varlen.h"
#include "fa2/fa2_bwd_traits.h"
#include "fa2/fa2_warp_gemm.cuh"

namespace fa2b {
namespace fa2 {

// addr[0] += a, addr[1] += b in global memory (addr 8-byte aligned), one vector reduction on
// sm_90 (half the atomic instructions of two scalar ones).
__device__ __forceinline__ void red_add2(float* addr, float a, float b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("red.global.add.v2.f32 [%0], {%1, %2};\n" ::"l"(addr), "f"(a), "f"(b) : "memory");
#else
  atomicAdd(addr, a);
  atomicAdd(addr + 1, b);
#endif
}

// One warp per query row: d_sum[row] = sum_d dO[row, d] * O[row, d]; dq_accum[row, :] = 0.
template <typename T, int kHeadDim>
__global__ void __launch_bounds__(256)
    fa2_bwd_preprocess(const AttnBwdParams p, float* dq_accum, float* d_sum) {
  const std::int64_t rows = static_cast<std::int64_t>(p.fwd.B) * p.fwd.H * p.fwd.T_q;
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * 8 + threadIdx.x / 32;
  const int lane = static_cast<int>(threadIdx.x % 32);
  if (row >= rows) return;
  const int i = static_cast<int>(row % p.fwd.T_q);
  const std::int64_t bh = row / p.fwd.T_q;
  const int h = static_cast<int>(bh % p.fwd.H);
  const int b = static_cast<int>(bh / p.fwd.H);
  // A variable-length batch's rows past its sequence's length: no D_i (they see no key).
  const int tensor_row = varlen_tensor_row(p.fwd, b, i);
  const float sum = tensor_row >= 0 ? row_dot_do_o<T, kHeadDim>(p, b, h, tensor_row, lane) : 0.f;
  if (lane == 0) d_sum[row] = sum;
  zero_accum_row<kHeadDim>(dq_accum + row * kHeadDim, lane);
}

template <typename Traits, typename T, bool kMasked, bool kPadD = false, bool kVarlen = false>
__global__ void __launch_bounds__(Traits::kThreads, 1)
    fa2_bwd_kernel(const AttnBwdParams p, float* dq_accum, const float* d_sum,
                   const MaskReach reach) {
  constexpr int kBM = Traits::kBlockM;
  constexpr int kBN = Traits::kBlockN;
  constexpr int kD = Traits::kHeadDim;
  constexpr int kPitch = Traits::kPitch;
  constexpr int kPitchN = Traits::kPitchN;
  constexpr int kSdPMT = Traits::kSdPRows / 16;  // 16-row strips per warp
  constexpr int kSdPNT = Traits::kSdPCols / 8;   // 8-column tiles per strip
  constexpr int kKVMT = Traits::kKVRows / 16;
  constexpr int kKVNT = Traits::kKVCols / 8;
  constexpr int kQMT = Traits::kQRows / 16;
  constexpr int kQNT = Traits::kQCols / 8;
  constexpr float kLog2e = 1.4426950408889634f;

  constexpr int kStages = Traits::kQStages;
  extern __shared__ __align__(128) unsigned char smem_raw[];
  T* sQ0 = reinterpret_cast<T*>(smem_raw);  // kStages buffers of Q, then of dO
  T* sdO0 = sQ0 + kStages * kBM * kPitch;
  T* sK = sdO0 + kStages * kBM * kPitch;
  T* sV = sK + kBN * kPitch;
  T* sP = sV + kBN * kPitch;
  T* sdS = sP + kBM * kPitchN;
  // Per stage: the rows' LSE (natural log, as saved), then D_i.
  float* sLse0 = reinterpret_cast<float*>(sdS + kBM * kPitchN);
  float* sDi0 = sLse0 + kStages * kBM;

  const int tid = static_cast<int>(threadIdx.x);
  const int warp = tid / 32;
  const int lane = tid % 32;
  const int g = lane >> 2;
  const int t = lane & 3;

  static_assert(!kVarlen || kMasked, "a variable-length batch masks its sequences' key tails");
  const AttnParams& f = p.fwd;
  const int n_block = static_cast<int>(blockIdx.x);
  const int h_kv = static_cast<int>(blockIdx.y);
  const int b = static_cast<int>(blockIdx.z);
  const int group = f.H / f.H_kv;
  const int n0 = n_block * kBN;
  // The attention's lengths: the sequence's under kVarlen (read once), else T_q and T_k, read
  // from the params where used (the dense instantiations compile as if varlen did not exist).
  int seq_q = 0, seq_k = 0;
  std::int64_t q_row0 = 0, k_row0 = 0;  // a packed sequence's first rows in the tensors
  if constexpr (kVarlen) {
    seq_q = sequence_length_q(f, b);
    seq_k = sequence_length_k(f, b);
    if (f.cu_seqlens_q != nullptr) {
      if (n0 >= seq_k) return;  // no key of this sequence: the rows belong to the next one
      q_row0 = f.cu_seqlens_q[b];
      k_row0 = f.cu_seqlens_k[b];
    }
  }
  auto t_q = [&] {
    if constexpr (kVarlen)
      return seq_q;
    else
      return f.T_q;
  };
  auto t_k = [&] {
    if constexpr (kVarlen)
      return seq_k;
    else
      return f.T_k;
  };
  // Bottom-right alignment: row i sees keys i + diag - reach.left .. i + diag + reach.right.
  auto diag_of = [&] {
    if constexpr (kVarlen)
      return seq_k - seq_q;
    else
      return mask_diag(f);
  };
  const int diag = diag_of();

  const T* k = static_cast<const T*>(f.k) + b * f.k_batch_stride + h_kv * f.k_head_stride +
               k_row0 * f.k_row_stride;
  const T* v = static_cast<const T*>(f.v) + b * f.v_batch_stride + h_kv * f.v_head_stride +
               k_row0 * f.v_row_stride;

  // Query blocks that see a key of this block, the same range for every head of the group:
  // from the one holding the first row that sees key n0 (row n0 - diag - right: the causal
  // diagonal, a window's right edge) to the one holding the last row that sees the block's
  // last key (a window's left edge).
  const int num_m = (t_q() + kBM - 1) / kBM;
  int m_first = 0, m_end = num_m;
  if (kMasked) {
    m_first = min(num_m, max(0, n0 - diag - reach.right) / kBM);
    const int last_row = min(n0 + kBN, t_k()) - 1 - diag + reach.left;
    m_end = last_row < 0 ? 0 : min(num_m, last_row / kBM + 1);
  }
  // Under kVarlen a padded sequence's padding keys (n0 >= seq_k) are seen by no row.
  const int m_count = m_end > m_first && !(kVarlen && n0 >= seq_k) ? m_end - m_first : 0;
  const int iterations = m_count * group;

  float acc_dk[kKVMT][kKVNT][4];
  float acc_dv[kKVMT][kKVNT][4];
#pragma unroll
  for (int mi = 0; mi < kKVMT; ++mi) {
#pragma unroll
    for (int j = 0; j < kKVNT; ++j) {
#pragma unroll
      for (int e = 0; e < 4; ++e) acc_dk[mi][j][e] = acc_dv[mi][j][e] = 0.f;
    }
  }

  // Stages Q, dO, LSE and D_i of iteration `it` in buffer it % kStages, all by cp.async: a
  // plain load of the row statistics would hold its warps at the store to shared memory for a
  // whole global-memory latency per query block. Rows past T_q land as zeros: their Q and dO
  // are zero too, so their P (exp2(0) = 1) meets only zeros in dV, dK and dQ.
  auto load_query_block = [&](int it, int h, int m0) {
    const int st = kStages == 2 ? (it & 1) : 0;
    const T* q = static_cast<const T*>(f.q) + b * f.q_batch_stride + h * f.q_head_stride +
                 q_row0 * f.q_row_stride;
    const T* d_o = static_cast<const T*>(p.d_o) + b * f.o_batch_stride + h * f.o_head_stride +
                   q_row0 * f.o_row_stride;
    if constexpr (kPadD) {
      const int live_chunks = f.D / 8;
      load_tile<Traits, kBM, T, true>(sQ0 + st * kBM * kPitch, q, f.q_row_stride, m0, t_q(), tid,
                                      live_chunks);
      load_tile<Traits, kBM, T, true>(sdO0 + st * kBM * kPitch, d_o, f.o_row_stride, m0, t_q(), tid,
                                      live_chunks);
    } else if (m0 + kBM <= t_q()) {
      load_tile<Traits, kBM, T, false, true>(sQ0 + st * kBM * kPitch, q, f.q_row_stride, m0, t_q(),
                                             tid);
      load_tile<Traits, kBM, T, false, true>(sdO0 + st * kBM * kPitch, d_o, f.o_row_stride, m0,
                                             t_q(), tid);
    } else {
      load_tile<Traits, kBM>(sQ0 + st * kBM * kPitch, q, f.q_row_stride, m0, t_q(), tid);
      load_tile<Traits, kBM>(sdO0 + st * kBM * kPitch, d_o, f.o_row_stride, m0, t_q(), tid);
    }
    if (tid < 2 * kBM) {
      const int r = tid % kBM;
      const bool in = m0 + r < t_q();
      // D_i (and the dQ accumulator) keep dense [B, H, T_q] rows; so does the LSE but for a
      // packed batch, whose LSE is [H, total_q].
      const std::int64_t row = (static_cast<std::int64_t>(b) * f.H + h) * f.T_q + (in ? m0 + r : 0);
      const float* src = tid < kBM ? f.lse + row : d_sum + row;
      if constexpr (kVarlen) {  // a separate statement: the dense kernels compile as before
        if (tid < kBM && f.cu_seqlens_q != nullptr) {
          src = f.lse + static_cast<std::int64_t>(h) * f.cu_seqlens_q[f.B] + q_row0 +
                (in ? m0 + r : 0);
        }
      }
      float* dst = (tid < kBM ? sLse0 : sDi0) + st * kBM + r;
      cp_async_4(smem_u32(dst), src, in);
    }
    cp_async_commit();
  };

  if (iterations > 0) {
    load_tile<Traits, kBN, T, kPadD>(sK, k, f.k_row_stride, n0, t_k(), tid, f.D / 8);
    load_tile<Traits, kBN, T, kPadD>(sV, v, f.v_row_stride, n0, t_k(), tid, f.D / 8);
    cp_async_commit();
    load_query_block(0, h_kv * group, m_first * kBM);
  }

  const float scale_log2 = f.scale * kLog2e;
  // The iteration's query head and first row, stepped rather than divided out of `it` (an
  // integer division per use): query blocks m_first.. of the group's first head, then the next.
  int h = h_kv * group;
  int m0 = m_first * kBM;
  auto advance = [&](int& head, int& row0) {
    row0 += kBM;
    if (row0 >= m_end * kBM) {
      row0 = m_first * kBM;
      ++head;
    }
  };
  for (int it = 0; it < iterations; ++it) {
    const int st = kStages == 2 ? (it & 1) : 0;
    const T* sQ = sQ0 + st * kBM * kPitch;
    const T* sdO = sdO0 + st * kBM * kPitch;
    const float* sLse = sLse0 + st * kBM;
    const float* sDi = sDi0 + st * kBM;
    cp_async_wait<0>();
    // Q, dO, LSE, D_i of this block landed; the last block's P, dS and (two stages) its Q, dO
    // buffers are no longer read.
    __syncthreads();
    if (kStages == 2 && it + 1 < iterations) {
      int h_next = h, m0_next = m0;
      advance(h_next, m0_next);
      load_query_block(it + 1, h_next, m0_next);
    }

    // ---- S = Q K^T, dP = dO V^T; P and dS to shared memory ----
    {
      const int warp_now = thread_index_unhoisted() >> 5;  // see warp_gemm
      const int wm = warp_now % Traits::kSdPWarpsM;
      const int wn = warp_now / Traits::kSdPWarpsM;
      // The key block's first column and the diagonal are recomputed here from the block index
      // and the params rather than kept: held across the loop they spill the D = 128 tile.
      const int n0_now = block_index_unhoisted() * kBN;
      const int diag_now = diag_of();
      bool need_mask = n0_now + kBN > t_k();
      if (kMasked) {
        need_mask = need_mask || n0_now + kBN - 1 > m0 + diag_now + reach.right ||
                    n0_now < m0 + kBM - 1 + diag_now - reach.left;
      }
      const int r0 = wm * Traits::kSdPRows;  // warp's first row in the block
      const int c0 = wn * Traits::kSdPCols;  // warp's first key column
      float s[kSdPMT][kSdPNT][4], dp[kSdPMT][kSdPNT][4];
#pragma unroll
      for (int mi = 0; mi < kSdPMT; ++mi) {
#pragma unroll
        for (int j = 0; j < kSdPNT; ++j) {
#pragma unroll
          for (int e = 0; e < 4; ++e) s[mi][j][e] = dp[mi][j][e] = 0.f;
        }
      }
      warp_gemm<T, kD, kSdPMT, kSdPNT, false, false, kD, kD>(s, sQ, r0, 0, sK, c0, 0, lane);
      warp_gemm<T, kD, kSdPMT, kSdPNT, false, false, kD, kD>(dp, sdO, r0, 0, sV, c0, 0, lane);
      // P = exp2(S * scale * log2 e - LSE * log2 e), in place.
#pragma unroll
      for (int mi = 0; mi < kSdPMT; ++mi) {
#pragma unroll
        for (int r = 0; r < 2; ++r) {
          // A row that saw no key has LSE = -inf: its P is +inf here, but such a row only
          // occurs in a block that takes the mask below, which zeroes every one of its entries.
          const float lse = sLse[r0 + mi * 16 + g + 8 * r] * kLog2e;
#pragma unroll
          for (int j = 0; j < kSdPNT; ++j) {
#pragma unroll
            for (int e = 0; e < 2; ++e) {
              s[mi][j][2 * r + e] = fast_exp2(fmaf(s[mi][j][2 * r + e], scale_log2, -lse));
            }
          }
        }
      }
      // Only blocks with keys past T_k or crossing a bound of the mask (the causal diagonal, a
      // window's edges) pay for the mask. The lane geometry is re-read inside (as in the
      // forward): kept from before the loop it would hold registers across every query block.
      if (need_mask) {
        const int tid_now = thread_index_unhoisted();
        const int lane_now = tid_now & 31;
        const int wn_now = (tid_now >> 5) / Traits::kSdPWarpsM;
        const int wm_now = (tid_now >> 5) % Traits::kSdPWarpsM;
        // Element (mi, j, e) of the lane: key = key_lane + j*8 + (e&1), row = row_lane + dr.
        const int key_lane =
            block_index_unhoisted() * kBN + wn_now * Traits::kSdPCols + 2 * (lane_now & 3);
        const int row_lane = m0 + wm_now * Traits::kSdPRows + (lane_now >> 2);
#pragma unroll
        for (int mi = 0; mi < kSdPMT; ++mi) {
#pragma unroll
          for (int j = 0; j < kSdPNT; ++j) {
#pragma unroll
            for (int e = 0; e < 4; ++e) {
              const int key = key_lane + j * 8 + (e & 1);
              const int row = row_lane + mi * 16 + (e >= 2 ? 8 : 0);
              if (key >= t_k() || (kMasked && (key > row + diag_of() + reach.right ||
                                               key < row + diag_of() - reach.left))) {
                s[mi][j][e] = 0.f;
              }
            }
          }
        }
      }
      // dS = P o (dP - D_i); P and dS to shared memory in the input dtype.
#pragma unroll
      for (int mi = 0; mi < kSdPMT; ++mi) {
#pragma unroll
        for (int r = 0; r < 2; ++r) {
          const int row = r0 + mi * 16 + g + 8 * r;
          const float di = sDi[row];
#pragma unroll
          for (int j = 0; j < kSdPNT; ++j) {
            const float p0 = s[mi][j][2 * r], p1 = s[mi][j][2 * r + 1];
            const int off = SwizzledTile<kBN>::offset(row, c0 + j * 8) + 2 * t;
            *reinterpret_cast<std::uint32_t*>(sP + off) = pack2<T>(p0, p1);
            *reinterpret_cast<std::uint32_t*>(sdS + off) =
                pack2<T>(p0 * (dp[mi][j][2 * r] - di), p1 * (dp[mi][j][2 * r + 1] - di));
          }
        }
      }
    }
    __syncthreads();  // P and dS complete

    // ---- dV += P^T dO, dK += dS^T Q (keys are the rows; queries the reduction) ----
    {
      const int warp_now = thread_index_unhoisted() >> 5;
      const int wn = warp_now % Traits::kKVWarpsN;
      const int wd = warp_now / Traits::kKVWarpsN;
      const int key0 = wn * Traits::kKVRows;
      const int d0 = wd * Traits::kKVCols;
      warp_gemm<T, kBM, kKVMT, kKVNT, true, true, kBN, kD>(acc_dv, sP, 0, key0, sdO, 0, d0, lane);
      warp_gemm<T, kBM, kKVMT, kKVNT, true, true, kBN, kD>(acc_dk, sdS, 0, key0, sQ, 0, d0, lane);
    }
    if constexpr (kStages == 1) {
      __syncthreads();  // Q, dO, P no longer read: the next block may land
      if (it + 1 < iterations) {
        int h_next = h, m0_next = m0;
        advance(h_next, m0_next);
        load_query_block(it + 1, h_next, m0_next);
      }
    }

    // ---- dQ += dS K into the fp32 accumulator ----
    {
      const int warp_now = thread_index_unhoisted() >> 5;
      const int wm = warp_now % Traits::kQWarpsM;
      const int wd = warp_now / Traits::kQWarpsM;
      float* dq = dq_accum + ((static_cast<std::int64_t>(b) * f.H + h) * f.T_q) * kD;
      const int r0 = wm * Traits::kQRows;
      const int d0 = wd * Traits::kQCols;
      float acc[kQMT][kQNT][4];
#pragma unroll
      for (int mi = 0; mi < kQMT; ++mi) {
#pragma unroll
        for (int j = 0; j < kQNT; ++j) {
#pragma unroll
          for (int e = 0; e < 4; ++e) acc[mi][j][e] = 0.f;
        }
      }
      warp_gemm<T, kBN, kQMT, kQNT, false, true, kBN, kD>(acc, sdS, r0, 0, sK, 0, d0, lane);
#pragma unroll
      for (int mi = 0; mi < kQMT; ++mi) {
#pragma unroll
        for (int r = 0; r < 2; ++r) {
          const int row = m0 + r0 + mi * 16 + g + 8 * r;
          if (row < t_q()) {
            float* dst = dq + static_cast<std::int64_t>(row) * kD + d0 + 2 * t;
#pragma unroll
            for (int j = 0; j < kQNT; ++j)
              red_add2(dst + j * 8, acc[mi][j][2 * r], acc[mi][j][2 * r + 1]);
          }
        }
      }
    }
    advance(h, m0);
  }

  // ---- dK (scaled), dV to global, rows of this key block below T_k ----
  {
    const int wn = warp % Traits::kKVWarpsN;
    const int wd = warp / Traits::kKVWarpsN;
    T* dk = static_cast<T*>(p.d_k) + b * f.k_batch_stride + h_kv * f.k_head_stride +
            k_row0 * f.k_row_stride;
    T* dv = static_cast<T*>(p.d_v) + b * f.v_batch_stride + h_kv * f.v_head_stride +
            k_row0 * f.v_row_stride;
#pragma unroll
    for (int mi = 0; mi < kKVMT; ++mi) {
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const int key = n0 + wn * Traits::kKVRows + mi * 16 + g + 8 * r;
        // Under kVarlen: a packed sequence's keys, a padded one's up to the batch's T_k (its
        // padding keys as zeros: no row saw them). The dense kernels keep their own test (their
        // code as before varlen existed).
        if constexpr (kVarlen) {
          if (key >= (f.cu_seqlens_q != nullptr ? seq_k : f.T_k)) continue;
        } else {
          if (key >= f.T_k) continue;
        }
        const int col0 = wd * Traits::kKVCols + 2 * t;
#pragma unroll
        for (int j = 0; j < kKVNT; ++j) {
          const int col = col0 + j * 8;
          if (kPadD && col >= f.D) continue;  // a padding column (p.D is a multiple of 8)
          *reinterpret_cast<std::uint32_t*>(dk + static_cast<std::int64_t>(key) * f.k_row_stride +
                                            col) =
              pack2<T>(acc_dk[mi][j][2 * r] * f.scale, acc_dk[mi][j][2 * r + 1] * f.scale);
          *reinterpret_cast<std::uint32_t*>(dv + static_cast<std::int64_t>(key) * f.v_row_stride +
                                            col) =
              pack2<T>(acc_dv[mi][j][2 * r], acc_dv[mi][j][2 * r + 1]);
        }
      }
    }
  }
}

}  // namespace fa2
}  // namespace fa2b
