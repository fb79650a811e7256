// SPDX-License-Identifier: Apache-2.0
// Backward stages 4 and 5: dK = scale * dS^T Q and dV = P^T dO, the products whose reduction
// runs over query rows. C[j, d] = alpha * sum_{h in group(hk)} sum_i A_h[i, j] * B_h[i, d]:
// one CTA per (128-key tile, 128-column tile of D) and (batch, KV head), looping over every
// query head of the KV head's group and every 32-row query chunk, so the GQA sum stays in
// registers (no atomics, deterministic) and C is written once, in the input dtype.
// Tensor-core tiles (WMMA), cp.async double buffering over the flattened (head, chunk) loop.
#include <mma.h>

#include "naive/naive_common.cuh"

namespace fa2b {
namespace naive {
namespace {

using namespace nvcuda;

// Tiles in shared memory, both indexed [query row][column]: A [kTileK][kLdA] over 128 keys
// (read as A^T, i.e. col-major matrix_a), B [kTileK][kLdB] over 128 head-dim columns.
constexpr int kLdA = kTileM + kSmemPad;
constexpr int kLdB = kTileN + kSmemPad;
constexpr int kLdC = kWarpN + 4;  // per-warp float staging for the epilogue
constexpr int kStageElems = kTileK * kLdA + kTileK * kLdB;

template <typename T>
__global__ void __launch_bounds__(kThreads, 2)
    tn_kernel(AttnParams p, const T* A, TnOperands ops, int d_tiles) {
  static_assert(2 * kStageElems * sizeof(T) >= (kThreads / 32) * 16 * kLdC * sizeof(float),
                "epilogue staging must fit in the operand buffers it reuses");
  __shared__ __align__(128) T smem[2 * kStageElems];

  const int n = static_cast<int>(blockIdx.x) / d_tiles;   // key tile: output rows
  const int dt = static_cast<int>(blockIdx.x) % d_tiles;  // head-dim tile: output columns
  const int col0 = n * kTileM, dcol0 = dt * kTileN;

  const int tid = static_cast<int>(threadIdx.x);
  const int warp = tid / 32, lane = tid % 32;
  const int wm = warp / (kTileN / kWarpN), wn = warp % (kTileN / kWarpN);
  // A warp whose column strip starts past D has nothing to compute; a strip that D cuts
  // computes on B columns zero-filled past D and stores only the 8-column chunks below D.
  const bool warp_active = dcol0 + wn * kWarpN < p.D;
  const std::int64_t ldA = padded_ld(p.T_k);
  const int group = p.H / p.H_kv;
  const std::int64_t BHkv = static_cast<std::int64_t>(p.B) * p.H_kv;
  // Query chunks before the first row that sees this key tile (the causal diagonal), or after
  // the last one (a sliding window), hold P = dS = 0 for it and contribute nothing.
  const int last_col = col0 + kTileM - 1 < p.T_k ? col0 + kTileM - 1 : p.T_k - 1;
  const int i_begin = static_cast<int>(first_row_seeing(p, col0)) / kTileK * kTileK;
  const int i_end = static_cast<int>(last_row_seeing(p, last_col)) + 1;
  const int chunks = i_begin < i_end ? (i_end - i_begin + kTileK - 1) / kTileK : 0;
  const int steps = group * chunks;

  for (std::int64_t bhk = blockIdx.y; bhk < BHkv; bhk += gridDim.y) {
    const std::int64_t b = bhk / p.H_kv, hk = bhk % p.H_kv;

    auto load = [&](int stage, int step) {
      T* As = smem + stage * kStageElems;
      T* Bs = As + kTileK * kLdA;
      const std::int64_t h = hk * group + step / chunks;
      const int i0 = i_begin + (step % chunks) * kTileK;
      const T* a = A + (b * p.H + h) * p.T_q * ldA;
      const T* bm = static_cast<const T*>(ops.b) + b * ops.b_batch_stride + h * ops.b_head_stride;
      constexpr int kChunksA = kTileM / 8;
      for (int c = tid; c < kTileK * kChunksA; c += kThreads) {
        const int r = c / kChunksA, cc = (c % kChunksA) * 8;
        const int i = i0 + r;
        // Only columns the softmax / launch_ds wrote for row i's 128-row tile are read (they
        // hold zeros past the row's mask); the rest is zero-filled, never read.
        const bool ok = i < p.T_q && col0 + cc < round_up8(pv_key_end(p, i / kTileM));
        cp_async16(As + r * kLdA + cc, a + (ok ? i * ldA + col0 + cc : 0), ok);
      }
      constexpr int kChunksB = kTileN / 8;
      for (int c = tid; c < kTileK * kChunksB; c += kThreads) {
        const int r = c / kChunksB, cc = (c % kChunksB) * 8;
        const int i = i0 + r;
        const bool ok = i < p.T_q && dcol0 + cc < p.D;
        cp_async16(Bs + r * kLdB + cc, bm + (ok ? i * ops.b_row_stride + dcol0 + cc : 0), ok);
      }
    };

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[kWarpM / 16][kWarpN / 16];
#pragma unroll
    for (int i = 0; i < kWarpM / 16; ++i)
#pragma unroll
      for (int j = 0; j < kWarpN / 16; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    if (steps > 0) load(0, 0);
    cp_async_commit();
    for (int s = 0; s < steps; ++s) {
      if (s + 1 < steps) load((s + 1) & 1, s + 1);
      cp_async_commit();
      cp_async_wait<1>();
      __syncthreads();
      if (warp_active) {
        const T* As = smem + (s & 1) * kStageElems;
        const T* Bs = As + kTileK * kLdA;
#pragma unroll
        for (int kk = 0; kk < kTileK; kk += 16) {
          // A^T's 16x16 block at (keys wm*64 + 16i, rows kk): column-major in the [row][key]
          // tile, leading dimension kLdA.
          wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::col_major> a[kWarpM / 16];
          wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> bf[kWarpN / 16];
#pragma unroll
          for (int i = 0; i < kWarpM / 16; ++i)
            wmma::load_matrix_sync(a[i], As + kk * kLdA + wm * kWarpM + i * 16, kLdA);
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

    // Epilogue through shared memory: fragments have no defined element order. Every key row
    // below T_k is written, zeros where no query row contributed (steps == 0).
    if (warp_active) {
      T* c_base = static_cast<T*>(ops.c) + b * ops.c_batch_stride + hk * ops.c_head_stride;
      float* stage = reinterpret_cast<float*>(smem) + warp * 16 * kLdC;
      const int r = lane / 2, c = (lane % 2) * 16;
      const int gcol = dcol0 + wn * kWarpN + c;
#pragma unroll
      for (int i = 0; i < kWarpM / 16; ++i) {
#pragma unroll
        for (int j = 0; j < kWarpN / 16; ++j) {
#pragma unroll
          for (int e = 0; e < acc[i][j].num_elements; ++e) acc[i][j].x[e] *= ops.alpha;
          wmma::store_matrix_sync(stage + j * 16, acc[i][j], kLdC, wmma::mem_row_major);
        }
        __syncwarp();
        const int key = col0 + wm * kWarpM + i * 16 + r;
        if (key < p.T_k) {
          T* dst = c_base + key * ops.c_row_stride + gcol;
          if (gcol < p.D) reinterpret_cast<uint4*>(dst)[0] = pack8<T>(stage + r * kLdC + c);
          if (gcol + 8 < p.D) reinterpret_cast<uint4*>(dst)[1] = pack8<T>(stage + r * kLdC + c + 8);
        }
        __syncwarp();
      }
    }
    __syncthreads();  // the next (batch, KV head) reuses the buffers
  }
}

}  // namespace

template <typename T>
cudaError_t launch_tn(const AttnParams& p, const T* A, const TnOperands& ops, cudaStream_t stream) {
  const int n_tiles = (p.T_k + kTileM - 1) / kTileM;
  const int d_tiles = (p.D + kTileN - 1) / kTileN;
  const std::int64_t BHkv = static_cast<std::int64_t>(p.B) * p.H_kv;
  const dim3 grid(static_cast<unsigned>(n_tiles) * static_cast<unsigned>(d_tiles),
                  static_cast<unsigned>(BHkv < kMaxGridY ? BHkv : kMaxGridY));
  tn_kernel<T><<<grid, kThreads, 0, stream>>>(p, A, ops, d_tiles);
  return cudaGetLastError();
}

template cudaError_t launch_tn<__half>(const AttnParams&, const __half*, const TnOperands&,
                                       cudaStream_t);
template cudaError_t launch_tn<__nv_bfloat16>(const AttnParams&, const __nv_bfloat16*,
                                              const TnOperands&, cudaStream_t);

}  // namespace naive
}  // namespace fa2b
