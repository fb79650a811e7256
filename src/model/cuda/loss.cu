// SPDX-License-Identifier: Apache-2.0
// The loss (mean of the logits), the constant fill of its gradient, and the weights' normal
// initialisation. The sum: float32 per
// thread and block over a grid-stride range, one partial per block, then one block adds the
// kLossBlocks partials in float64 in a fixed tree order (deterministic).
#include "model/cuda/model_kernels.h"
#include "model/cuda/vec.cuh"

namespace fa2b::model::cuda {
namespace {

constexpr int kThreads = 256;

template <typename T, bool kVector>
__global__ void sum_partials_kernel(const T* __restrict__ x, std::int64_t count,
                                    float* __restrict__ partials) {
  __shared__ float warp_sums[kThreads / 32];
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  float s = 0.0f;
  if constexpr (kVector) {
    for (std::int64_t v = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
         v < count / kVec; v += stride) {
      float f[kVec];
      load8(x + v * kVec, f);
#pragma unroll
      for (int i = 0; i < kVec; ++i) s += f[i];
    }
  } else {
    for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
         i < count; i += stride)
      s += to_float(x[i]);
  }
  s = warp_sum(s);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    float b = 0.0f;
    for (int w = 0; w < kThreads / 32; ++w) b += warp_sums[w];
    partials[blockIdx.x] = b;
  }
}

__global__ void finish_mean_kernel(const float* __restrict__ partials, int blocks,
                                   std::int64_t count, double* __restrict__ out) {
  __shared__ double sm[kLossBlocks];
  for (int i = threadIdx.x; i < kLossBlocks; i += blockDim.x)
    sm[i] = i < blocks ? static_cast<double>(partials[i]) : 0.0;
  __syncthreads();
  for (int width = kLossBlocks / 2; width > 0; width /= 2) {
    for (int i = threadIdx.x; i < width; i += blockDim.x) sm[i] += sm[i + width];
    __syncthreads();
  }
  if (threadIdx.x == 0) *out = sm[0] / static_cast<double>(count);
}

template <typename T>
__global__ void fill_kernel(T* __restrict__ x, std::int64_t count, float value) {
  const T v = from_float<T>(value);
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    x[i] = v;
}

__device__ __forceinline__ std::uint64_t splitmix64(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

template <typename T>
__global__ void init_normal_kernel(T* __restrict__ x, std::int64_t count, std::uint64_t seed,
                                   std::uint64_t first, float stddev) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::uint64_t r = splitmix64(seed ^ splitmix64(first + static_cast<std::uint64_t>(i)));
    const float u1 = (static_cast<float>(r >> 40) + 0.5f) * (1.0f / 16777216.0f);  // (0, 1)
    const float u2 = static_cast<float>((r >> 16) & 0xFFFFFFu) * (1.0f / 16777216.0f);
    x[i] = from_float<T>(stddev * sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2));
  }
}

}  // namespace

cudaError_t init_normal(void* x, std::int64_t count, std::uint64_t seed, std::uint64_t first,
                        float stddev, KernelDType dtype, cudaStream_t stream) {
  return dispatch_16bit(dtype, [&](auto tag) {
    using T = decltype(tag);
    init_normal_kernel<T><<<blocks_for(count, 256, 65535u * 8u), 256, 0, stream>>>(
        static_cast<T*>(x), count, seed, first, stddev);
    return cudaGetLastError();
  });
}

cudaError_t mean_all(const void* x, std::int64_t count, float* partials, double* out,
                     KernelDType dtype, cudaStream_t stream) {
  if (count < 1) return cudaErrorInvalidValue;
  return dispatch_16bit(dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* p = static_cast<const T*>(x);
    const bool vector = count % kVec == 0 && aligned16(x);
    const unsigned blocks =
        blocks_for(vector ? count / kVec : count, kThreads, static_cast<unsigned>(kLossBlocks));
    if (vector) {
      sum_partials_kernel<T, true><<<blocks, kThreads, 0, stream>>>(p, count, partials);
    } else {
      sum_partials_kernel<T, false><<<blocks, kThreads, 0, stream>>>(p, count, partials);
    }
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    finish_mean_kernel<<<1, 512, 0, stream>>>(partials, static_cast<int>(blocks), count, out);
    return cudaGetLastError();
  });
}

cudaError_t fill(void* x, std::int64_t count, float value, KernelDType dtype, cudaStream_t stream) {
  return dispatch_16bit(dtype, [&](auto tag) {
    using T = decltype(tag);
    fill_kernel<T>
        <<<blocks_for(count, 256, 65535u * 8u), 256, 0, stream>>>(static_cast<T*>(x), count, value);
    return cudaGetLastError();
  });
}

}  // namespace fa2b::model::cuda
