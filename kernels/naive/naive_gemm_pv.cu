// SPDX-License-Identifier: Apache-2.0
// Stage 3: O = alpha * P V from the materialised P [B, H, T_q, ld(T_k)] in the input dtype.
// Tensor-core tiles (WMMA), cp.async double buffering over the keys; each query tile reads
// only the keys its rows can see, from pv_key_begin (a sliding window's start) to pv_key_end
// (the causal diagonal or the window's end), shared with the softmax.
#include <mma.h>

#include "naive/naive_common.cuh"

namespace fa2b {
namespace naive {
namespace {

using namespace nvcuda;

constexpr int kLdA = kTileK + kSmemPad;  // P tile: [kTileM][kLdA]
constexpr int kLdB = kTileN + kSmemPad;  // V tile: [kTileK][kLdB]
constexpr int kLdC = kWarpN + 4;         // per-warp float staging for the epilogue
constexpr int kStageElems = kTileM * kLdA + kTileK * kLdB;

template <typename T>
__global__ void __launch_bounds__(kThreads, 2)
    pv_kernel(AttnParams p, const T* P, float alpha, int m_tiles, int n_tiles) {
  static_assert(2 * kStageElems * sizeof(T) >= (kThreads / 32) * 16 * kLdC * sizeof(float),
                "epilogue staging must fit in the operand buffers it reuses");
  __shared__ __align__(128) T smem[2 * kStageElems];

  // Heaviest causal row tiles first, so the tail of the grid is made of short blocks.
  const int m = m_tiles - 1 - static_cast<int>(blockIdx.x) / n_tiles;
  const int n = static_cast<int>(blockIdx.x) % n_tiles;
  const int row0 = m * kTileM, col0 = n * kTileN;
  const int k_end = pv_key_end(p, m);
  const int k_end8 = round_up8(k_end);  // P columns the softmax wrote for this tile
  const int k_begin = pv_key_begin(p, m);
  const int ksteps = k_end > k_begin ? (k_end - k_begin + kTileK - 1) / kTileK : 0;

  const int tid = static_cast<int>(threadIdx.x);
  const int warp = tid / 32, lane = tid % 32;
  const int wm = warp / (kTileN / kWarpN), wn = warp % (kTileN / kWarpN);
  // A warp whose column strip starts past D has nothing to compute; a strip that D cuts (D a
  // multiple of 8 but not of 32) computes on V columns zero-filled past D and stores only the
  // 8-column chunks below D.
  const bool warp_active = col0 + wn * kWarpN < p.D;
  const std::int64_t ldP = padded_ld(p.T_k);
  const int group = p.H / p.H_kv;
  const std::int64_t BH = static_cast<std::int64_t>(p.B) * p.H;

  for (std::int64_t bh = blockIdx.y; bh < BH; bh += gridDim.y) {
    const std::int64_t b = bh / p.H, h = bh % p.H, hk = h / group;
    const T* pr = P + bh * p.T_q * ldP;
    const T* v = static_cast<const T*>(p.v) + b * p.v_batch_stride + hk * p.v_head_stride;
    T* o = static_cast<T*>(p.o) + b * p.o_batch_stride + h * p.o_head_stride;

    auto load = [&](int stage, int k0) {
      T* As = smem + stage * kStageElems;
      T* Bs = As + kTileM * kLdA;
      constexpr int kChunksA = kTileK / 8;
      for (int c = tid; c < kTileM * kChunksA; c += kThreads) {
        const int r = c / kChunksA, cc = (c % kChunksA) * 8;
        const bool ok = row0 + r < p.T_q && k0 + cc < k_end8;
        cp_async16(As + r * kLdA + cc, pr + (ok ? (row0 + r) * ldP + k0 + cc : 0), ok);
      }
      // V rows past k_end are zero-filled so that the unwritten-but-zero P tail meets zeros.
      constexpr int kChunksB = kTileN / 8;
      for (int c = tid; c < kTileK * kChunksB; c += kThreads) {
        const int r = c / kChunksB, cc = (c % kChunksB) * 8;
        const bool ok = k0 + r < k_end && col0 + cc < p.D;
        cp_async16(Bs + r * kLdB + cc, v + (ok ? (k0 + r) * p.v_row_stride + col0 + cc : 0), ok);
      }
    };

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[kWarpM / 16][kWarpN / 16];
#pragma unroll
    for (int i = 0; i < kWarpM / 16; ++i)
#pragma unroll
      for (int j = 0; j < kWarpN / 16; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    if (ksteps > 0) load(0, k_begin);
    cp_async_commit();
    for (int ks = 0; ks < ksteps; ++ks) {
      if (ks + 1 < ksteps) load((ks + 1) & 1, k_begin + (ks + 1) * kTileK);
      cp_async_commit();
      cp_async_wait<1>();
      __syncthreads();
      if (warp_active) {
        const T* As = smem + (ks & 1) * kStageElems;
        const T* Bs = As + kTileM * kLdA;
#pragma unroll
        for (int kk = 0; kk < kTileK; kk += 16) {
          wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> a[kWarpM / 16];
          wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> bf[kWarpN / 16];
#pragma unroll
          for (int i = 0; i < kWarpM / 16; ++i)
            wmma::load_matrix_sync(a[i], As + (wm * kWarpM + i * 16) * kLdA + kk, kLdA);
#pragma unroll
          for (int j = 0; j < kWarpN / 16; ++j)
            wmma::load_matrix_sync(bf[j], Bs + kk * kLdB + wn * kWarpN + j * 16, kLdB);
#pragma unroll
          for (int i = 0; i < kWarpM / 16; ++i)
#pragma unroll
            for (int j = 0; j < kWarpN / 16; ++j) wmma::mma_sync(acc[i][j], a[i], bf[j], acc[i][j]);
        }
      }
      __syncthreads();
    }
    cp_async_wait<0>();  // the last (empty) group, before the buffers are reused
    __syncthreads();

    // Epilogue through shared memory: fragments have no defined element order.
    if (warp_active) {
      float* stage = reinterpret_cast<float*>(smem) + warp * 16 * kLdC;
      const int r = lane / 2, c = (lane % 2) * 16;
      const int gcol = col0 + wn * kWarpN + c;
#pragma unroll
      for (int i = 0; i < kWarpM / 16; ++i) {
#pragma unroll
        for (int j = 0; j < kWarpN / 16; ++j) {
#pragma unroll
          for (int e = 0; e < acc[i][j].num_elements; ++e) acc[i][j].x[e] *= alpha;
          wmma::store_matrix_sync(stage + j * 16, acc[i][j], kLdC, wmma::mem_row_major);
        }
        __syncwarp();
        const int grow = row0 + wm * kWarpM + i * 16 + r;
        if (grow < p.T_q) {
          T* dst = o + grow * p.o_row_stride + gcol;
          if (gcol < p.D) reinterpret_cast<uint4*>(dst)[0] = pack8<T>(stage + r * kLdC + c);
          if (gcol + 8 < p.D) reinterpret_cast<uint4*>(dst)[1] = pack8<T>(stage + r * kLdC + c + 8);
        }
        __syncwarp();
      }
    }
    __syncthreads();  // the next (batch, head) reuses the buffers
  }
}

}  // namespace

template <typename T>
cudaError_t launch_pv(const AttnParams& p, const T* P, float alpha, cudaStream_t stream) {
  const int m_tiles = (p.T_q + kTileM - 1) / kTileM;
  const int n_tiles = (p.D + kTileN - 1) / kTileN;
  const std::int64_t BH = static_cast<std::int64_t>(p.B) * p.H;
  const dim3 grid(static_cast<unsigned>(m_tiles) * static_cast<unsigned>(n_tiles),
                  static_cast<unsigned>(BH < kMaxGridY ? BH : kMaxGridY));
  pv_kernel<T><<<grid, kThreads, 0, stream>>>(p, P, alpha, m_tiles, n_tiles);
  return cudaGetLastError();
}

template cudaError_t launch_pv<__half>(const AttnParams&, const __half*, float, cudaStream_t);
template cudaError_t launch_pv<__nv_bfloat16>(const AttnParams&, const __nv_bfloat16*, float,
                                              cudaStream_t);

}  // namespace naive
}  // namespace fa2b
