// SPDX-License-Identifier: Apache-2.0
// Hopper attention backward, version 2: FlashAttention-2's backward (Dao 2023, algorithm 2) on
// warpgroup MMA.
//
// One CTA per (key block, KV head, batch), two warpgroups of 64 keys each. K and V stay in
// shared memory, dK and dV in registers while the CTA walks every query block of every query
// head of its group (grouped-query dK/dV summed on chip); Q, dO and the rows' LSE and D_i
// stream through two cp.async stages. Per query block: Sᵀ = K·Qᵀ and dPᵀ = V·dOᵀ (both
// operands in shared memory), Pᵀ = exp(Sᵀ·scale − LSE) and dSᵀ = Pᵀ ∘ (dPᵀ − D) in registers,
// dV += Pᵀ·dO and dK += dSᵀ·Q with Pᵀ and dSᵀ as register A operands (dO and Q read
// MN-major), dSᵀ to shared memory, then dQ = dS·K (dS read MN-major from dSᵀ) added into the
// fp32 accumulator by the copy engine from shared memory (each warpgroup's slice, one thread
// issuing), not by per-thread reductions. Sᵀ and dPᵀ are waited for one at a time, so the
// exponentials overlap dPᵀ. The pre- and post-passes are fa2's (D_i and the zeroed
// accumulator; scale · accumulator → dQ).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "common/attn_params.h"
#include "common/cp_async.cuh"
#include "common/mma.cuh"
#include "fa2/fa2_bwd_kernel.cuh"
#include "fa2/fa2_tile_io.cuh"
#include "fa3/fa3_bwd_traits.h"
#include "fa3/fa3_softmax.cuh"
#include "hopper/sw128_tile.cuh"
#include "hopper/tma.cuh"
#include "hopper/warpgroup.cuh"
#include "hopper/wgmma_desc.cuh"
#include "hopper/wgmma_ops.cuh"
#include "hopper/wgmma_sync.cuh"

namespace fa2b {

// The main kernel's parameter: the backward's tensors, the workspace, and the copy engine's
// map of the dQ accumulator.
struct Fa3BwdArgs {
  AttnBwdParams p;
  const float* d_sum;
  CUtensorMap dq_map;
};

namespace fa3 {

// One thread's dQ accumulators (columns [0, D/2) of the warpgroup's slice, rows row and row + 8)
// into the warpgroup's shared-memory slice: 32-column boxes of 64 rows, each row's 16-byte
// chunks swizzled by row % 8 as the copy engine's 128-byte swizzle expects.
template <int kDQCols, int kDQAcc>
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

template <typename Traits, typename T, bool kCausal>
__global__ void __launch_bounds__(Traits::kThreads, 1)
    fa3_bwd_kernel(const __grid_constant__ Fa3BwdArgs args) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  const AttnBwdParams& p = args.p;
  const float* d_sum = args.d_sum;
  constexpr int kBM = Traits::kBlockM;
  constexpr int kBN = Traits::kBlockN;
  constexpr int kD = Traits::kHeadDim;
  constexpr int kThreads = Traits::kThreads;
  constexpr int kSAcc = kBM / 2;            // Sᵀ, dPᵀ accumulators per thread (m64 x kBM)
  constexpr int kKVAcc = kD / 2;            // dK, dV (m64 x kD)
  constexpr int kDQAcc = kD / 4;            // dQ (m64 x kD/2)
  constexpr int kDQCols = Traits::kDQCols;  // dQ columns per warpgroup
  constexpr float kLog2e = 1.4426950408889634f;

  extern __shared__ unsigned char smem_raw[];
  const std::uint32_t s_k = (smem_u32(smem_raw) + 1023u) & ~1023u;
  const std::uint32_t s_v = s_k + Traits::kKVBytes;
  const std::uint32_t s_q0 = s_k + Traits::kQOffset;  // stage st at + st * kQBytes
  const std::uint32_t s_do0 = s_k + Traits::kDOOffset;
  const std::uint32_t s_ds = s_k + Traits::kDSOffset;
  const std::uint32_t s_dq0 = s_k + Traits::kDQOffset;  // (buffer, warpgroup) slices
  float* s_lse0 =
      reinterpret_cast<float*>(smem_raw + (s_k + Traits::kStatOffset - smem_u32(smem_raw)));
  float* s_di0 = s_lse0 + 2 * kBM;

  const int tid = static_cast<int>(threadIdx.x);
  const int wg = tid / 128;
  const int warp = (tid % 128) / 32;
  const int lane = tid % 32;

  const AttnParams& f = p.fwd;
  const int n_block = static_cast<int>(blockIdx.x);
  const int h_kv = static_cast<int>(blockIdx.y);
  const int b = static_cast<int>(blockIdx.z);
  const int group = f.H / f.H_kv;
  const int n0 = n_block * kBN;
  const int diag = f.T_k - f.T_q;  // bottom-right causal: row i sees keys j <= i + diag

  const T* k = static_cast<const T*>(f.k) + b * f.k_batch_stride + h_kv * f.k_head_stride;
  const T* v = static_cast<const T*>(f.v) + b * f.v_batch_stride + h_kv * f.v_head_stride;

  // Query blocks that see a key of this block: under the causal mask the first is the one
  // holding row n0 - diag; the same range for every head of the group.
  const int num_m = (f.T_q + kBM - 1) / kBM;
  const int m_first = kCausal ? min(num_m, max(0, n0 - diag) / kBM) : 0;
  const int m_count = num_m - m_first;
  const int iterations = m_count * group;

  float acc_dk[kKVAcc];
  float acc_dv[kKVAcc];
#pragma unroll
  for (int i = 0; i < kKVAcc; ++i) acc_dk[i] = acc_dv[i] = 0.f;

  // Q, dO, LSE and D_i of iteration `it` into stage it % 2, all by cp.async. Rows past T_q land
  // as zeros: their Q and dO are zero, so their P meets only zeros in dV, dK and dQ.
  auto load_query_block = [&](int it) {
    const int st = it & 1;
    const int h = h_kv * group + it / m_count;
    const int m0 = (m_first + it % m_count) * kBM;
    const T* q = static_cast<const T*>(f.q) + b * f.q_batch_stride + h * f.q_head_stride;
    const T* d_o = static_cast<const T*>(p.d_o) + b * f.o_batch_stride + h * f.o_head_stride;
    sm90::load_sw128_tile<kBM, kD, kThreads>(s_q0 + st * Traits::kQBytes, q, f.q_row_stride, m0,
                                             f.T_q, tid);
    sm90::load_sw128_tile<kBM, kD, kThreads>(s_do0 + st * Traits::kQBytes, d_o, f.o_row_stride, m0,
                                             f.T_q, tid);
    if (tid < 2 * kBM) {
      const int r = tid % kBM;
      const bool in = m0 + r < f.T_q;
      const std::int64_t row = (static_cast<std::int64_t>(b) * f.H + h) * f.T_q + (in ? m0 + r : 0);
      const float* src = tid < kBM ? f.lse + row : d_sum + row;
      float* dst = (tid < kBM ? s_lse0 : s_di0) + st * kBM + r;
      cp_async_4(smem_u32(dst), src, in);
    }
    cp_async_commit();
  };

  if (iterations > 0) {
    sm90::load_sw128_tile<kBN, kD, kThreads>(s_k, k, f.k_row_stride, n0, f.T_k, tid);
    sm90::load_sw128_tile<kBN, kD, kThreads>(s_v, v, f.v_row_stride, n0, f.T_k, tid);
    cp_async_commit();
    load_query_block(0);
  }

  // This thread's first key row within the block (accumulator rows of Sᵀ, dPᵀ, dK, dV), and its
  // first column within a query block (columns of Sᵀ and dPᵀ; rows of dQ are the same lanes').
  const int key_row = wg * 64 + warp * 16 + (lane >> 2);
  const int col_lane = 2 * (lane & 3);
  const int dq_row = warp * 16 + (lane >> 2);
  const float scale_log2 = f.scale * kLog2e;

  for (int it = 0; it < iterations; ++it) {
    const int h = h_kv * group + it / m_count;
    const int m0 = (m_first + it % m_count) * kBM;
    const int st = it & 1;
    const std::uint32_t s_q = s_q0 + st * Traits::kQBytes;
    const std::uint32_t s_do = s_do0 + st * Traits::kQBytes;
    const float* s_lse = s_lse0 + st * kBM;
    const float* s_di = s_di0 + st * kBM;
    cp_async_wait<0>();
    sm90::fence_smem_for_async_proxy();
    // This block's Q, dO, LSE, D_i landed; the last block's stage and dSᵀ are no longer read.
    __syncthreads();
    if (it + 1 < iterations) load_query_block(it + 1);

    float s[kSAcc];
    float dp[kSAcc];
    sm90::wgmma_fence();
#pragma unroll
    for (int ks = 0; ks < kD / 16; ++ks) {
      sm90::wgmma_ss<T, kBM, 0, 0>(s, sm90::kmajor_desc<kBN>(s_k, wg * 64, ks),
                                   sm90::kmajor_desc<kBM>(s_q, 0, ks), ks > 0 ? 1 : 0);
    }
    sm90::wgmma_commit();
#pragma unroll
    for (int ks = 0; ks < kD / 16; ++ks) {
      sm90::wgmma_ss<T, kBM, 0, 0>(dp, sm90::kmajor_desc<kBN>(s_v, wg * 64, ks),
                                   sm90::kmajor_desc<kBM>(s_do, 0, ks), ks > 0 ? 1 : 0);
    }
    sm90::wgmma_commit();
    sm90::wgmma_wait<1>();  // Sᵀ only: dPᵀ may still run while the exponentials do
    sm90::fence_operands(s);

    // Pᵀ in place. A key above a query's causal limit gets P = 0 (set after the exp: a query
    // row that sees no key at all has LSE = -inf).
    const bool need_mask = kCausal && n0 + kBN - 1 > m0 + diag;
#pragma unroll
    for (int j = 0; j < kSAcc / 4; ++j) {
      const int col = j * 8 + col_lane;
      const float2 lse = *reinterpret_cast<const float2*>(s_lse + col);
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int i = 4 * j + e;
        const float lse2 = ((e & 1) ? lse.y : lse.x) * kLog2e;
        float pv = fa2::fast_exp2(fmaf(s[i], scale_log2, -lse2));
        if (need_mask) {
          const int key = n0 + key_row + ((e & 2) ? 8 : 0);
          const int query = m0 + col + (e & 1);
          if (key > query + diag) pv = 0.f;
        }
        s[i] = pv;
      }
    }
    sm90::wgmma_wait<0>();
    sm90::fence_operands(dp);
    // dSᵀ = Pᵀ ∘ (dPᵀ − D_i) in place.
#pragma unroll
    for (int j = 0; j < kSAcc / 4; ++j) {
      const int col = j * 8 + col_lane;
      const float2 di = *reinterpret_cast<const float2*>(s_di + col);
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int i = 4 * j + e;
        dp[i] = s[i] * (dp[i] - ((e & 1) ? di.y : di.x));
      }
    }

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

    // dSᵀ to shared memory (keys x queries, one 64-column swizzled block): fragment kk holds
    // columns 16 kk .. 16 kk + 15 of rows key_row and key_row + 8.
    {
      unsigned char* ds_bytes = smem_raw + (s_ds - smem_u32(smem_raw));
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
    __syncthreads();  // dSᵀ complete from both warpgroups

    // dQ = dS·K over this block's keys: warpgroup wg takes columns [wg D/2, wg D/2 + D/2).
    float dq[kDQAcc];
    sm90::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < kBN / 16; ++kk) {
      const std::uint32_t k_cols = s_k + (wg * kDQCols / 64) * kBN * 128 + (wg * kDQCols % 64) * 2;
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

    // The slice of buffer it % 2 was last read by the copy engine two blocks ago: its issuer
    // waits for that read, the warpgroup's barrier passes the word on; after the stores (and
    // the proxy fence) a second barrier hands the slice to the issuer.
    const std::uint32_t slice = s_dq0 + ((it & 1) * 2 + wg) * Traits::kDQSliceBytes;
    const bool issuer = tid % 128 == 0;
    if (issuer) sm90::bulk_wait_group_read<1>();
    sm90::named_barrier_sync(1 + wg, 128);
    store_dq_slice<kDQCols>(slice, dq, dq_row, col_lane);
    sm90::fence_smem_for_async_proxy();
    sm90::named_barrier_sync(1 + wg, 128);
    if (issuer) {
#pragma unroll
      for (int box = 0; box < kDQCols / 32; ++box) {
        sm90::tma_reduce_add_4d(&args.dq_map, slice + box * Traits::kDQBoxBytes,
                                wg * kDQCols + 32 * box, m0, h, b);
      }
      sm90::bulk_commit_group();
    }
  }
  // The copy engine's last additions must land before the post-pass reads the accumulator.
  if (tid % 128 == 0) sm90::bulk_wait_group<0>();

  // dK = scale · Σ dSᵀ·Q, dV = Σ Pᵀ·dO, in the input dtype (zeros for a block no query sees).
  T* d_k = static_cast<T*>(p.d_k) + b * f.k_batch_stride + h_kv * f.k_head_stride;
  T* d_v = static_cast<T*>(p.d_v) + b * f.v_batch_stride + h_kv * f.v_head_stride;
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int row = n0 + key_row + 8 * r;
    if (row < f.T_k) {
      T* dk_row = d_k + static_cast<std::int64_t>(row) * f.k_row_stride + col_lane;
      T* dv_row = d_v + static_cast<std::int64_t>(row) * f.v_row_stride + col_lane;
#pragma unroll
      for (int j = 0; j < kKVAcc / 4; ++j) {
        *reinterpret_cast<std::uint32_t*>(dk_row + 8 * j) =
            pack2<T>(acc_dk[4 * j + 2 * r] * f.scale, acc_dk[4 * j + 2 * r + 1] * f.scale);
        *reinterpret_cast<std::uint32_t*>(dv_row + 8 * j) =
            pack2<T>(acc_dv[4 * j + 2 * r], acc_dv[4 * j + 2 * r + 1]);
      }
    }
  }
#else
  (void)args;
#endif
}

}  // namespace fa3
}  // namespace fa2b
