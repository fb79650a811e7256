// SPDX-License-Identifier: Apache-2.0
// Sums over the rows of a [n, cols] tensor: bias gradients (column sums of dY) and LayerNorm's
// dgamma / dbeta. Pass one: blockIdx.y is a chunk of rows, each thread eight adjacent columns,
// eight row lanes per column group, reduced in shared memory into one float32 partial per
// (chunk, column). Pass two: each column sums its chunks in order. No atomics: the result is
// the same bits every run.
#include "model/cuda/model_kernels.h"
#include "model/cuda/vec.cuh"

namespace fa2b::model::cuda {
namespace {

constexpr int kColGroups = 32;  // threads along the columns (one warp: 512 contiguous bytes)
constexpr int kRowLanes = 8;    // threads along the rows
constexpr int kBlockCols = kColGroups * kVec;

// kLn: partials [chunk, 2 * cols] = (sum dy * xhat | sum dy); else [chunk, cols] = sum dy.
template <typename T, bool kLn>
__global__ void column_partials_kernel(const T* __restrict__ dy, const T* __restrict__ x,
                                       const float* __restrict__ stats, std::int64_t n,
                                       std::int64_t cols, std::int64_t rows_per_chunk,
                                       float* __restrict__ partials) {
  __shared__ float sm[kLn ? 2 : 1][kRowLanes][kBlockCols];
  const int group = threadIdx.x % kColGroups, lane = threadIdx.x / kColGroups;
  const std::int64_t c = (blockIdx.x * static_cast<std::int64_t>(kColGroups) + group) * kVec;
  const std::int64_t r0 = blockIdx.y * rows_per_chunk;
  const std::int64_t r1 = min(n, r0 + rows_per_chunk);
  float acc[kVec] = {}, acc2[kVec] = {};
  if (c < cols) {
    for (std::int64_t r = r0 + lane; r < r1; r += kRowLanes) {
      float d[kVec];
      load8(dy + r * cols + c, d);
      if constexpr (kLn) {
        float f[kVec];
        load8(x + r * cols + c, f);
        const float mean = stats[2 * r], rstd = stats[2 * r + 1];
#pragma unroll
        for (int i = 0; i < kVec; ++i) {
          acc[i] += d[i] * (f[i] - mean) * rstd;
          acc2[i] += d[i];
        }
      } else {
#pragma unroll
        for (int i = 0; i < kVec; ++i) acc[i] += d[i];
      }
    }
  }
#pragma unroll
  for (int i = 0; i < kVec; ++i) {
    sm[0][lane][group * kVec + i] = acc[i];
    if constexpr (kLn) sm[kLn ? 1 : 0][lane][group * kVec + i] = acc2[i];
  }
  __syncthreads();
  // Each of the block's threads finishes a quarter-vector of columns: kBlockCols columns
  // (times two for LayerNorm) over 256 threads.
  const std::int64_t pcols = kLn ? 2 * cols : cols;
  for (int j = threadIdx.x; j < (kLn ? 2 : 1) * kBlockCols; j += blockDim.x) {
    const int part = j / kBlockCols, col = j % kBlockCols;
    const std::int64_t cc = blockIdx.x * static_cast<std::int64_t>(kBlockCols) + col;
    if (cc >= cols) continue;
    float s = 0.0f;
#pragma unroll
    for (int l = 0; l < kRowLanes; ++l) s += sm[part][l][col];
    partials[blockIdx.y * pcols + part * cols + cc] = s;
  }
}

// out0[j] (j < cols) or out1[j - cols] = sum over the chunks of partials[k, j], in order.
template <typename T>
__global__ void column_finish_kernel(const float* __restrict__ partials, int chunks,
                                     std::int64_t cols, std::int64_t pcols, T* __restrict__ out0,
                                     T* __restrict__ out1) {
  const std::int64_t j = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (j >= pcols) return;
  float s = 0.0f;
  for (int k = 0; k < chunks; ++k) s += partials[k * pcols + j];
  if (j < cols) {
    out0[j] = from_float<T>(s);
  } else {
    out1[j - cols] = from_float<T>(s);
  }
}

template <typename T, bool kLn>
cudaError_t launch(const void* dy, const void* x, const float* stats, std::int64_t n,
                   std::int64_t cols, void* out0, void* out1, float* partials, int chunks,
                   cudaStream_t stream) {
  if (cols % kVec != 0 || n < 1 || chunks < 1) return cudaErrorInvalidValue;
  const std::int64_t rows_per_chunk = (n + chunks - 1) / chunks;
  const int used = static_cast<int>((n + rows_per_chunk - 1) / rows_per_chunk);
  const dim3 grid(blocks_for(cols, kBlockCols, 0x7fffffffu), static_cast<unsigned>(used));
  column_partials_kernel<T, kLn><<<grid, kColGroups * kRowLanes, 0, stream>>>(
      static_cast<const T*>(dy), static_cast<const T*>(x), stats, n, cols, rows_per_chunk,
      partials);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return e;
  const std::int64_t pcols = kLn ? 2 * cols : cols;
  column_finish_kernel<T><<<blocks_for(pcols, 256, 0x7fffffffu), 256, 0, stream>>>(
      partials, used, cols, pcols, static_cast<T*>(out0), static_cast<T*>(out1));
  return cudaGetLastError();
}

}  // namespace

cudaError_t column_sums(const void* dy, std::int64_t n, std::int64_t cols, void* out,
                        float* partials, int chunks, KernelDType dtype, cudaStream_t stream) {
  return dispatch_16bit(dtype, [&](auto tag) {
    return launch<decltype(tag), false>(dy, nullptr, nullptr, n, cols, out, nullptr, partials,
                                        chunks, stream);
  });
}

cudaError_t layer_norm_param_grads(const void* dy, const void* x, const float* stats,
                                   std::int64_t n, std::int64_t h, void* dgamma, void* dbeta,
                                   float* partials, int chunks, KernelDType dtype,
                                   cudaStream_t stream) {
  return dispatch_16bit(dtype, [&](auto tag) {
    return launch<decltype(tag), true>(dy, x, stats, n, h, dgamma, dbeta, partials, chunks, stream);
  });
}

}  // namespace fa2b::model::cuda
