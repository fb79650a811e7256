// SPDX-License-Identifier: Apache-2.0
// Stage 1: S = scale * Q K^T, written to the float32 workspace [B, H, T_q, ld(T_k)].
// Tensor-core tiles (WMMA), cp.async double buffering over D in chunks of 32 (a head dim that
// is a multiple of 8 but not of 32 gets its last chunk zero-filled past D).
#include <mma.h>

#include "naive/naive_common.cuh"

namespace fa2b {
namespace naive {
namespace {

using namespace nvcuda;

constexpr int kLdA = kTileK + kSmemPad;  // Q tile: [kTileM][kLdA]
constexpr int kLdB = kTileK + kSmemPad;  // K tile: [kTileN][kLdB], read as K^T (col-major)
constexpr int kLdC = kWarpN + 4;         // per-warp float staging for the epilogue
constexpr int kStageElems = (kTileM + kTileN) * kLdA;

template <typename T>
__global__ void __launch_bounds__(kThreads, 2)
    qk_kernel(AttnParams p, float* S, int m_tiles, int n_tiles) {
  static_assert(2 * kStageElems * sizeof(T) >= (kThreads / 32) * 16 * kLdC * sizeof(float),
                "epilogue staging must fit in the operand buffers it reuses");
  __shared__ __align__(128) T smem[2 * kStageElems];

  // Heaviest causal row tiles first, so the tail of the grid is made of short blocks.
  const int m = m_tiles - 1 - static_cast<int>(blockIdx.x) / n_tiles;
  const int n = static_cast<int>(blockIdx.x) % n_tiles;
  const int row0 = m * kTileM, col0 = n * kTileN;
  const int last_row = row0 + kTileM < p.T_q ? row0 + kTileM - 1 : p.T_q - 1;
  // Tiles wholly above the diagonal, or wholly before a sliding window, are never read by the
  // softmax: skip them.
  if (col0 > last_key(p, last_row) || col0 + kTileN <= first_key(p, row0)) return;

  const int tid = static_cast<int>(threadIdx.x);
  const int warp = tid / 32, lane = tid % 32;
  const int wm = warp / (kTileN / kWarpN), wn = warp % (kTileN / kWarpN);
  const std::int64_t ldS = padded_ld(p.T_k);
  const int group = p.H / p.H_kv;
  const std::int64_t BH = static_cast<std::int64_t>(p.B) * p.H;
  const int ksteps = (p.D + kTileK - 1) / kTileK;

  for (std::int64_t bh = blockIdx.y; bh < BH; bh += gridDim.y) {
    const std::int64_t b = bh / p.H, h = bh % p.H, hk = h / group;
    const T* q = static_cast<const T*>(p.q) + b * p.q_batch_stride + h * p.q_head_stride;
    const T* k = static_cast<const T*>(p.k) + b * p.k_batch_stride + hk * p.k_head_stride;
    float* s = S + bh * p.T_q * ldS;

    auto load = [&](int stage, int k0) {
      T* As = smem + stage * kStageElems;
      T* Bs = As + kTileM * kLdA;
      constexpr int kChunksPerRow = kTileK / 8;
      for (int c = tid; c < kTileM * kChunksPerRow; c += kThreads) {
        const int r = c / kChunksPerRow, cc = (c % kChunksPerRow) * 8;
        const bool ok = row0 + r < p.T_q && k0 + cc < p.D;
        cp_async16(As + r * kLdA + cc, q + (ok ? (row0 + r) * p.q_row_stride + k0 + cc : 0), ok);
      }
      for (int c = tid; c < kTileN * kChunksPerRow; c += kThreads) {
        const int r = c / kChunksPerRow, cc = (c % kChunksPerRow) * 8;
        const bool ok = col0 + r < p.T_k && k0 + cc < p.D;
        cp_async16(Bs + r * kLdB + cc, k + (ok ? (col0 + r) * p.k_row_stride + k0 + cc : 0), ok);
      }
    };

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[kWarpM / 16][kWarpN / 16];
#pragma unroll
    for (int i = 0; i < kWarpM / 16; ++i)
#pragma unroll
      for (int j = 0; j < kWarpN / 16; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    load(0, 0);
    cp_async_commit();
    for (int ks = 0; ks < ksteps; ++ks) {
      if (ks + 1 < ksteps) load((ks + 1) & 1, (ks + 1) * kTileK);
      cp_async_commit();
      cp_async_wait<1>();
      __syncthreads();
      const T* As = smem + (ks & 1) * kStageElems;
      const T* Bs = As + kTileM * kLdA;
#pragma unroll
      for (int kk = 0; kk < kTileK; kk += 16) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> a[kWarpM / 16];
        wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::col_major> bf[kWarpN / 16];
#pragma unroll
        for (int i = 0; i < kWarpM / 16; ++i)
          wmma::load_matrix_sync(a[i], As + (wm * kWarpM + i * 16) * kLdA + kk, kLdA);
#pragma unroll
        for (int j = 0; j < kWarpN / 16; ++j)
          wmma::load_matrix_sync(bf[j], Bs + (wn * kWarpN + j * 16) * kLdB + kk, kLdB);
#pragma unroll
        for (int i = 0; i < kWarpM / 16; ++i)
#pragma unroll
          for (int j = 0; j < kWarpN / 16; ++j) wmma::mma_sync(acc[i][j], a[i], bf[j], acc[i][j]);
      }
      __syncthreads();
    }

    // Epilogue: fragments have no defined element order, so go through shared memory to get
    // coalesced, bounds-checked float4 rows. Columns in [T_k, ldS) hold zeros (K rows were
    // zero-filled) and are never read; writing them keeps the stores whole float4s.
    float* stage = reinterpret_cast<float*>(smem) + warp * 16 * kLdC;
    const int r = lane / 2, c = (lane % 2) * 16;
    const int gcol = col0 + wn * kWarpN + c;
#pragma unroll
    for (int i = 0; i < kWarpM / 16; ++i) {
#pragma unroll
      for (int j = 0; j < kWarpN / 16; ++j) {
#pragma unroll
        for (int e = 0; e < acc[i][j].num_elements; ++e) acc[i][j].x[e] *= p.scale;
        wmma::store_matrix_sync(stage + j * 16, acc[i][j], kLdC, wmma::mem_row_major);
      }
      __syncwarp();
      const int grow = row0 + wm * kWarpM + i * 16 + r;
      if (grow < p.T_q) {
        float* dst = s + grow * ldS;
#pragma unroll
        for (int v = 0; v < 4; ++v) {
          if (gcol + 4 * v < ldS) {
            *reinterpret_cast<float4*>(dst + gcol + 4 * v) =
                *reinterpret_cast<const float4*>(stage + r * kLdC + c + 4 * v);
          }
        }
      }
      __syncwarp();
    }
    __syncthreads();  // the next (batch, head) reuses the buffers
  }
}

}  // namespace

template <typename T>
cudaError_t launch_qk(const AttnParams& p, float* S, cudaStream_t stream) {
  const int m_tiles = (p.T_q + kTileM - 1) / kTileM;
  const int n_tiles = (p.T_k + kTileN - 1) / kTileN;
  const std::int64_t BH = static_cast<std::int64_t>(p.B) * p.H;
  const dim3 grid(static_cast<unsigned>(m_tiles) * static_cast<unsigned>(n_tiles),
                  static_cast<unsigned>(BH < kMaxGridY ? BH : kMaxGridY));
  qk_kernel<T><<<grid, kThreads, 0, stream>>>(p, S, m_tiles, n_tiles);
  return cudaGetLastError();
}

template cudaError_t launch_qk<__half>(const AttnParams&, float*, cudaStream_t);
template cudaError_t launch_qk<__nv_bfloat16>(const AttnParams&, float*, cudaStream_t);

}  // namespace naive
}  // namespace fa2b
