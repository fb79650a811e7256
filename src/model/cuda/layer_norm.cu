// SPDX-License-Identifier: Apache-2.0
// LayerNorm forward and the input half of its backward: one warp per row, 16-byte vectors,
// float32 statistics (two passes for the variance, as the host step computes it).
#include "model/cuda/model_kernels.h"
#include "model/cuda/vec.cuh"

namespace fa2b::model::cuda {
namespace {

constexpr float kEps = 1e-5f;
constexpr int kRowsPerBlock = 8;  // warps per block

template <typename T>
__global__ void layer_norm_forward_kernel(const T* __restrict__ x, std::int64_t n, std::int64_t h,
                                          const T* __restrict__ gamma, const T* __restrict__ beta,
                                          T* __restrict__ y, float* __restrict__ stats) {
  const int lane = threadIdx.x % 32;
  const std::int64_t r = blockIdx.x * static_cast<std::int64_t>(kRowsPerBlock) + threadIdx.x / 32;
  if (r >= n) return;
  const T* xr = x + r * h;
  const std::int64_t vecs = h / kVec;
  float sum = 0.0f;
  for (std::int64_t v = lane; v < vecs; v += 32) {
    float f[kVec];
    load8(xr + v * kVec, f);
#pragma unroll
    for (int i = 0; i < kVec; ++i) sum += f[i];
  }
  const float mean = warp_sum(sum) / static_cast<float>(h);
  float var = 0.0f;
  for (std::int64_t v = lane; v < vecs; v += 32) {
    float f[kVec];
    load8(xr + v * kVec, f);
#pragma unroll
    for (int i = 0; i < kVec; ++i) var += (f[i] - mean) * (f[i] - mean);
  }
  const float rstd = 1.0f / sqrtf(warp_sum(var) / static_cast<float>(h) + kEps);
  for (std::int64_t v = lane; v < vecs; v += 32) {
    float f[kVec], g[kVec], b[kVec];
    load8(xr + v * kVec, f);
    load8(gamma + v * kVec, g);
    load8(beta + v * kVec, b);
#pragma unroll
    for (int i = 0; i < kVec; ++i) f[i] = (f[i] - mean) * rstd * g[i] + b[i];
    store8(y + r * h + v * kVec, f);
  }
  if (lane == 0) {
    stats[2 * r] = mean;
    stats[2 * r + 1] = rstd;
  }
}

template <typename T>
__global__ void layer_norm_backward_dx_kernel(const T* __restrict__ dy, const T* __restrict__ x,
                                              const float* __restrict__ stats, std::int64_t n,
                                              std::int64_t h, const T* __restrict__ gamma,
                                              T* __restrict__ dx_add) {
  const int lane = threadIdx.x % 32;
  const std::int64_t r = blockIdx.x * static_cast<std::int64_t>(kRowsPerBlock) + threadIdx.x / 32;
  if (r >= n) return;
  const float mean = stats[2 * r], rstd = stats[2 * r + 1];
  const T* xr = x + r * h;
  const T* dyr = dy + r * h;
  const std::int64_t vecs = h / kVec;
  float g_sum = 0.0f, gx_sum = 0.0f;
  for (std::int64_t v = lane; v < vecs; v += 32) {
    float f[kVec], d[kVec], g[kVec];
    load8(xr + v * kVec, f);
    load8(dyr + v * kVec, d);
    load8(gamma + v * kVec, g);
#pragma unroll
    for (int i = 0; i < kVec; ++i) {
      const float gi = d[i] * g[i];
      g_sum += gi;
      gx_sum += gi * (f[i] - mean) * rstd;
    }
  }
  const float g_mean = warp_sum(g_sum) / static_cast<float>(h);
  const float gx_mean = warp_sum(gx_sum) / static_cast<float>(h);
  for (std::int64_t v = lane; v < vecs; v += 32) {
    float f[kVec], d[kVec], g[kVec], acc[kVec];
    load8(xr + v * kVec, f);
    load8(dyr + v * kVec, d);
    load8(gamma + v * kVec, g);
    load8(dx_add + r * h + v * kVec, acc);
#pragma unroll
    for (int i = 0; i < kVec; ++i) {
      const float xhat = (f[i] - mean) * rstd;
      acc[i] += rstd * (d[i] * g[i] - g_mean - xhat * gx_mean);
    }
    store8(dx_add + r * h + v * kVec, acc);
  }
}

}  // namespace

cudaError_t layer_norm_forward(const void* x, std::int64_t n, std::int64_t h, const void* gamma,
                               const void* beta, void* y, float* stats, KernelDType dtype,
                               cudaStream_t stream) {
  if (h % kVec != 0) return cudaErrorInvalidValue;
  return dispatch_16bit(dtype, [&](auto tag) {
    using T = decltype(tag);
    layer_norm_forward_kernel<T>
        <<<blocks_for(n, kRowsPerBlock, 0x7fffffffu), 32 * kRowsPerBlock, 0, stream>>>(
            static_cast<const T*>(x), n, h, static_cast<const T*>(gamma),
            static_cast<const T*>(beta), static_cast<T*>(y), stats);
    return cudaGetLastError();
  });
}

cudaError_t layer_norm_backward_dx_add(const void* dy, const void* x, const float* stats,
                                       std::int64_t n, std::int64_t h, const void* gamma,
                                       void* dx_add, KernelDType dtype, cudaStream_t stream) {
  if (h % kVec != 0) return cudaErrorInvalidValue;
  return dispatch_16bit(dtype, [&](auto tag) {
    using T = decltype(tag);
    layer_norm_backward_dx_kernel<T>
        <<<blocks_for(n, kRowsPerBlock, 0x7fffffffu), 32 * kRowsPerBlock, 0, stream>>>(
            static_cast<const T*>(dy), static_cast<const T*>(x), stats, n, h,
            static_cast<const T*>(gamma), static_cast<T*>(dx_add));
    return cudaGetLastError();
  });
}

}  // namespace fa2b::model::cuda
