// SPDX-License-Identifier: Apache-2.0
// Row softmax for the standard backend. Each row is read from S once and kept in registers
// (a warp per row up to T_k = 1024, a block per row up to 32768); longer rows stream S twice.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>

#include "common/float_convert.cuh"
#include "core/mask_rule.h"
#include "standard/standard_softmax.h"

namespace fa2b {
namespace {

constexpr float kLog2e = 1.4426950408889634f;

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, off));
  return v;
}
__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
  return v;
}

// Reduction over a group of GROUP threads: a warp, or the whole block (`red` has a slot per
// warp; every thread of the block must call it).
template <int GROUP, bool kMax>
__device__ __forceinline__ float group_reduce(float v, float* red) {
  v = kMax ? warp_max(v) : warp_sum(v);
  if constexpr (GROUP > 32) {
    constexpr int kWarps = GROUP / 32;
    const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
    if (lane == 0) red[warp] = v;
    __syncthreads();
    float r = red[0];
#pragma unroll
    for (int w = 1; w < kWarps; ++w) r = kMax ? fmaxf(r, red[w]) : r + red[w];
    __syncthreads();  // red is reused by the next reduction
    return r;
  } else {
    return v;
  }
}

// Keys [0, n) that query row i sees (bottom-right causal alignment); n <= 0 when none.
// A padded variable-length batch also masks the keys past the sequence's length (its rows are
// self-attention ones, so the causal diagonal is the sequence's too).
__device__ __forceinline__ int visible_keys(const AttnParams& p, std::int64_t row) {
  const int t_k =
      p.seqused != nullptr ? p.seqused[row / (static_cast<std::int64_t>(p.H) * p.T_q)] : p.T_k;
  if (!p.causal) return t_k;
  const int i = static_cast<int>(row % p.T_q);
  const int n = i + mask_diag(p) + 1;
  return n < t_k ? n : t_k;
}

// GROUP threads per row (32: 8 rows per 256-thread block; else one row per block of GROUP),
// PER values per thread held in registers: T_k <= GROUP * PER.
template <typename T, int GROUP, int PER>
__global__ void __launch_bounds__(GROUP == 32 ? 256 : GROUP)
    softmax_cached(AttnParams p, const float* __restrict__ S, T* __restrict__ P,
                   std::int64_t rows) {
  constexpr int kThreads = GROUP == 32 ? 256 : GROUP;
  constexpr int kRowsPerBlock = kThreads / GROUP;
  __shared__ float red[kThreads / 32];
  const int t = static_cast<int>(threadIdx.x) % GROUP;
  const std::int64_t first =
      static_cast<std::int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / GROUP;
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * kRowsPerBlock;
  const int T_k = p.T_k;
  // With one row per block every thread takes the same trip count (block reductions).
  for (std::int64_t row = first; row < rows; row += step) {
    const int n = visible_keys(p, row);
    const float* s = S + row * T_k;
    float x[PER];
    float mx = -INFINITY;
#pragma unroll
    for (int e = 0; e < PER; ++e) {
      const int j = e * GROUP + t;
      x[e] = j < n ? s[j] : -INFINITY;
      mx = fmaxf(mx, x[e]);
    }
    mx = group_reduce<GROUP, true>(mx, red);
    const float mx2 = mx == -INFINITY ? 0.0f : mx * kLog2e;
    float sum = 0.0f;
#pragma unroll
    for (int e = 0; e < PER; ++e) {
      const int j = e * GROUP + t;
      x[e] = j < n ? exp2f(fmaf(x[e], kLog2e, -mx2)) : 0.0f;
      sum += x[e];
    }
    sum = group_reduce<GROUP, false>(sum, red);
    const bool empty = n <= 0;
    const float inv = empty ? 0.0f : 1.0f / sum;
    if (t == 0 && p.lse != nullptr) p.lse[row] = empty ? -INFINITY : mx + logf(sum);
    T* out = P + row * T_k;
#pragma unroll
    for (int e = 0; e < PER; ++e) {
      const int j = e * GROUP + t;
      if (j < T_k) out[j] = from_float<T>(x[e] * inv);
    }
  }
}

// Rows longer than the register cache: one block per row, S read twice (online max/sum).
template <typename T>
__global__ void __launch_bounds__(512) softmax_streamed(AttnParams p, const float* __restrict__ S,
                                                        T* __restrict__ P, std::int64_t rows) {
  constexpr int kThreads = 512;
  __shared__ float red[kThreads / 32];
  const int t = static_cast<int>(threadIdx.x);
  for (std::int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const int n = visible_keys(p, row);
    const float* s = S + row * p.T_k;
    float m = -INFINITY, l = 0.0f;
    for (int j = t; j < n; j += kThreads) {
      const float x = s[j];
      if (x > m) {
        l = l * exp2f((m - x) * kLog2e) + 1.0f;  // exp2f(-inf) = 0 on the first key
        m = x;
      } else {
        l += exp2f((x - m) * kLog2e);
      }
    }
    const float mx = group_reduce<kThreads, true>(m, red);
    const float mine = m == -INFINITY ? 0.0f : l * exp2f((m - mx) * kLog2e);
    const float sum = group_reduce<kThreads, false>(mine, red);
    const bool empty = n <= 0;
    const float inv = empty ? 0.0f : 1.0f / sum;
    if (t == 0 && p.lse != nullptr) p.lse[row] = empty ? -INFINITY : mx + logf(sum);
    T* out = P + row * p.T_k;
    for (int j = t; j < p.T_k; j += kThreads) {
      out[j] = from_float<T>(j < n ? exp2f((s[j] - mx) * kLog2e) * inv : 0.0f);
    }
  }
}

template <typename T, int GROUP, int PER>
cudaError_t launch_cached(const AttnParams& p, const float* S, T* P, std::int64_t rows,
                          cudaStream_t stream) {
  constexpr int kThreads = GROUP == 32 ? 256 : GROUP;
  constexpr int kRowsPerBlock = kThreads / GROUP;
  const std::int64_t blocks = (rows + kRowsPerBlock - 1) / kRowsPerBlock;
  const std::int64_t cap = std::int64_t{1} << 30;
  softmax_cached<T, GROUP, PER>
      <<<static_cast<unsigned>(blocks < cap ? blocks : cap), kThreads, 0, stream>>>(p, S, P, rows);
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch(const AttnParams& p, const float* S, T* P, cudaStream_t stream) {
  const std::int64_t rows = static_cast<std::int64_t>(p.B) * p.H * p.T_q;
  const int n = p.T_k;
  if (n <= 32) return launch_cached<T, 32, 1>(p, S, P, rows, stream);
  if (n <= 64) return launch_cached<T, 32, 2>(p, S, P, rows, stream);
  if (n <= 128) return launch_cached<T, 32, 4>(p, S, P, rows, stream);
  if (n <= 256) return launch_cached<T, 32, 8>(p, S, P, rows, stream);
  if (n <= 512) return launch_cached<T, 32, 16>(p, S, P, rows, stream);
  if (n <= 1024) return launch_cached<T, 32, 32>(p, S, P, rows, stream);
  if (n <= 2048) return launch_cached<T, 128, 16>(p, S, P, rows, stream);
  if (n <= 4096) return launch_cached<T, 256, 16>(p, S, P, rows, stream);
  if (n <= 8192) return launch_cached<T, 512, 16>(p, S, P, rows, stream);
  if (n <= 16384) return launch_cached<T, 512, 32>(p, S, P, rows, stream);
  if (n <= 32768) return launch_cached<T, 512, 64>(p, S, P, rows, stream);
  const std::int64_t cap = std::int64_t{1} << 30;
  softmax_streamed<T>
      <<<static_cast<unsigned>(rows < cap ? rows : cap), 512, 0, stream>>>(p, S, P, rows);
  return cudaGetLastError();
}

}  // namespace

cudaError_t standard_softmax(const AttnParams& p, const float* S, void* P, cudaStream_t stream) {
  if (p.dtype == KernelDType::bf16) {
    return launch<__nv_bfloat16>(p, S, static_cast<__nv_bfloat16*>(P), stream);
  }
  if (p.dtype == KernelDType::fp16) return launch<__half>(p, S, static_cast<__half*>(P), stream);
  return cudaErrorInvalidValue;
}

}  // namespace fa2b
