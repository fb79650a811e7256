// SPDX-License-Identifier: Apache-2.0
// Hopper attention forward, version 2: the FlashAttention-2 algorithm on warpgroup MMA.
//
// One CTA per (query tile, batch, head), one warpgroup per 64 query rows. Q is staged once; K
// and V tiles stream through two shared-memory stages by cp.async (the next tile loads while
// this one computes). S = Q·Kᵀ is one wgmma batch with both operands in shared memory; the
// online softmax runs on its accumulators in registers; O += P·V takes P straight from those
// registers as the A operand (V is read MN-major, no transpose pass). The P·V of a tile is
// issued right behind the next tile's Q·Kᵀ, so that tile's softmax overlaps it (V is loaded a
// tile behind K for that); no producer warps yet.
// Key tiles are walked from the last to the first so the masked tiles (T_k tail, causal
// diagonal) come first.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "common/attn_params.h"
#include "common/cp_async.cuh"
#include "common/mma.cuh"
#include "fa3/fa3_softmax.cuh"
#include "hopper/sw128_tile.cuh"
#include "hopper/wgmma_desc.cuh"
#include "hopper/wgmma_ops.cuh"
#include "hopper/wgmma_sync.cuh"

namespace fa2b {
namespace fa3 {

template <typename Traits, typename T, bool kCausal>
__global__ void __launch_bounds__(Traits::kThreads, 1) fa3_fwd_kernel(const AttnParams p) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  constexpr int kBM = Traits::kBlockM;
  constexpr int kBN = Traits::kBlockN;
  constexpr int kD = Traits::kHeadDim;
  constexpr int kThreads = Traits::kThreads;
  constexpr int kSAcc = kBN / 2;  // score accumulators per thread (m64 x kBN over 128 threads)
  constexpr int kOAcc = kD / 2;
  constexpr std::uint32_t kKVBytes = Traits::kKVBytes;

  extern __shared__ unsigned char smem_raw[];
  const std::uint32_t s_q = (smem_u32(smem_raw) + 1023u) & ~1023u;
  const std::uint32_t s_k = s_q + Traits::kQBytes;  // stage s at s_k + s * kKVBytes
  const std::uint32_t s_v = s_k + 2 * kKVBytes;

  const int tid = static_cast<int>(threadIdx.x);
  const int wg = tid / 128;
  const int warp = (tid % 128) / 32;
  const int lane = tid % 32;

  // Heaviest query tiles first over all (batch, head) pairs: under the causal mask the last
  // tiles see the most keys, and the grid's tail is made of short CTAs.
  const int num_m = (p.T_q + kBM - 1) / kBM;
  const unsigned num_bh = static_cast<unsigned>(p.B) * static_cast<unsigned>(p.H);
  const int m_block = num_m - 1 - static_cast<int>(blockIdx.x / num_bh);
  const int bh = static_cast<int>(blockIdx.x % num_bh);
  const int h = bh % p.H;
  const int b = bh / p.H;
  const int h_kv = h / (p.H / p.H_kv);
  const int m0 = m_block * kBM;

  const T* q = static_cast<const T*>(p.q) + b * p.q_batch_stride + h * p.q_head_stride;
  const T* k = static_cast<const T*>(p.k) + b * p.k_batch_stride + h_kv * p.k_head_stride;
  const T* v = static_cast<const T*>(p.v) + b * p.v_batch_stride + h_kv * p.v_head_stride;
  T* o = static_cast<T*>(p.o) + b * p.o_batch_stride + h * p.o_head_stride;

  // Bottom-right causal alignment: row i sees keys j <= i + diag.
  const int diag = p.T_k - p.T_q;
  int n_blocks = (p.T_k + kBN - 1) / kBN;
  if (kCausal) {
    const int last_visible = min(m0 + kBM, p.T_q) - 1 + diag;
    n_blocks = last_visible < 0 ? 0 : min(n_blocks, last_visible / kBN + 1);
  }
  const float scale_log2 = p.scale * 1.4426950408889634f;

  float acc_o[kOAcc];
#pragma unroll
  for (int i = 0; i < kOAcc; ++i) acc_o[i] = 0.f;
  RowState st;
  // This thread's first row within the CTA's tile, and its first column within a key tile.
  const int row_base = wg * 64 + warp * 16 + (lane >> 2);
  const int col_lane = 2 * (lane & 3);

  if (n_blocks > 0) {
    const int last = n_blocks - 1;
    sm90::load_sw128_tile<kBM, kD, kThreads>(s_q, q, p.q_row_stride, m0, p.T_q, tid);
    sm90::load_sw128_tile<kBN, kD, kThreads>(s_k + (last & 1) * kKVBytes, k, p.k_row_stride,
                                             last * kBN, p.T_k, tid);
    cp_async_commit();

    // P of the tile before (n + 1) as A fragments, live while its P·V runs.
    std::uint32_t pa[kBN / 16][4];
    for (int n = last; n >= 0; --n) {
      cp_async_wait<0>();
      sm90::fence_smem_for_async_proxy();
      // K_n and V_{n+1} landed; every warpgroup is done with K_{n+1} and V_{n+2}.
      __syncthreads();
      if (n > 0) {
        sm90::load_sw128_tile<kBN, kD, kThreads>(s_k + ((n - 1) & 1) * kKVBytes, k, p.k_row_stride,
                                                 (n - 1) * kBN, p.T_k, tid);
      }
      sm90::load_sw128_tile<kBN, kD, kThreads>(s_v + (n & 1) * kKVBytes, v, p.v_row_stride, n * kBN,
                                               p.T_k, tid);
      cp_async_commit();

      // S_n = Q·K_nᵀ, then O += P_{n+1}·V_{n+1} behind it: the softmax of S_n below runs while
      // the tensor cores work on P·V.
      float s[kSAcc];
      sm90::wgmma_fence();
#pragma unroll
      for (int ks = 0; ks < kD / 16; ++ks) {
        sm90::wgmma_ss<T, kBN, 0, 0>(s, sm90::kmajor_desc<kBM>(s_q, wg * 64, ks),
                                     sm90::kmajor_desc<kBN>(s_k + (n & 1) * kKVBytes, 0, ks),
                                     ks > 0 ? 1 : 0);
      }
      sm90::wgmma_commit();
      if (n < last) {
#pragma unroll
        for (int kk = 0; kk < kBN / 16; ++kk) {
          sm90::wgmma_rs<T, kD, 1>(acc_o, pa[kk],
                                   sm90::mnmajor_desc<kBN>(s_v + ((n + 1) & 1) * kKVBytes, kk), 1);
        }
        sm90::wgmma_commit();
        sm90::wgmma_wait<1>();
      } else {
        sm90::wgmma_wait<0>();
      }
      sm90::fence_operands(s);

      // Only the T_k tail tile and tiles crossing the causal diagonal pay for the mask.
      const int col0 = n * kBN;
      const bool need_mask = (col0 + kBN > p.T_k) || (kCausal && col0 + kBN - 1 > m0 + diag);
      if (need_mask) {
        const int tk_limit = p.T_k - col0 - col_lane;
        const int diag_limit = m0 + diag + row_base - col0 - col_lane;
#pragma unroll
        for (int i = 0; i < kSAcc; ++i) {
          const int dc = (i / 4) * 8 + (i & 1);
          const int dr = (i & 2) ? 8 : 0;
          if (dc >= tk_limit || (kCausal && dc > diag_limit + dr)) s[i] = -INFINITY;
        }
      }
      float corr[2];
      online_softmax(s, st, scale_log2, corr);

      sm90::wgmma_wait<0>();
      sm90::fence_operands(acc_o);
      sm90::fence_operands(pa);
      rescale_rows(acc_o, corr);
#pragma unroll
      for (int kk = 0; kk < kBN / 16; ++kk) pack_a_fragment<T>(s, kk, pa[kk]);
    }

    // The last P·V: V_0 was loaded by every thread in the last iteration.
    cp_async_wait<0>();
    sm90::fence_smem_for_async_proxy();
    __syncthreads();
    sm90::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < kBN / 16; ++kk) {
      sm90::wgmma_rs<T, kD, 1>(acc_o, pa[kk], sm90::mnmajor_desc<kBN>(s_v, kk), 1);
    }
    sm90::wgmma_commit();
    sm90::wgmma_wait<0>();
    sm90::fence_operands(acc_o);
    sm90::fence_operands(pa);
  }

  // Epilogue: normalise, write O (two elements per store) and the logsumexp.
  float lse_val[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    float l = st.sum[r];
    l += __shfl_xor_sync(0xffffffffu, l, 1);
    l += __shfl_xor_sync(0xffffffffu, l, 2);
    const float inv = l > 0.f ? 1.f / l : 0.f;
    lse_val[r] = l > 0.f ? st.max[r] * p.scale + __logf(l) : -INFINITY;
    const int row = m0 + row_base + 8 * r;
    if (row < p.T_q) {
      T* o_row = o + static_cast<std::int64_t>(row) * p.o_row_stride + col_lane;
#pragma unroll
      for (int j = 0; j < kOAcc / 4; ++j) {
        *reinterpret_cast<std::uint32_t*>(o_row + 8 * j) =
            pack2<T>(acc_o[4 * j + 2 * r] * inv, acc_o[4 * j + 2 * r + 1] * inv);
      }
    }
  }
  if (p.lse != nullptr && (lane & 3) == 0) {
    float* lse = p.lse + (static_cast<std::int64_t>(b) * p.H + h) * p.T_q;
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const int row = m0 + row_base + 8 * r;
      if (row < p.T_q) lse[row] = lse_val[r];
    }
  }
#else
  (void)p;
#endif
}

}  // namespace fa3
}  // namespace fa2b
