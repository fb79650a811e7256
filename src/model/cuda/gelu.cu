// SPDX-License-Identifier: Apache-2.0
// GELU (tanh approximation) forward and backward, element-wise over flat buffers: 16-byte
// vectors for the bulk, scalars for a tail of fewer than eight elements.
#include "model/cuda/model_kernels.h"
#include "model/cuda/vec.cuh"

namespace fa2b::model::cuda {
namespace {

constexpr float kSqrt2OverPi = 0.7978845608028654f;
constexpr float kGeluCubic = 0.044715f;

__device__ __forceinline__ float gelu(float x) {
  const float u = kSqrt2OverPi * (x + kGeluCubic * x * x * x);
  return 0.5f * x * (1.0f + tanhf(u));
}

__device__ __forceinline__ float gelu_grad(float x) {
  const float t = tanhf(kSqrt2OverPi * (x + kGeluCubic * x * x * x));
  const float du = kSqrt2OverPi * (1.0f + 3.0f * kGeluCubic * x * x);
  return 0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * du;
}

// kBackward: d[i] *= gelu'(x[i]); else d[i] = gelu(x[i]) (d is y).
template <typename T, bool kBackward>
__global__ void gelu_kernel(const T* __restrict__ x, std::int64_t count, T* __restrict__ d) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const std::int64_t first = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  for (std::int64_t v = first; v < count / kVec; v += stride) {
    float f[kVec], g[kVec];
    load8(x + v * kVec, f);
    if constexpr (kBackward) {
      load8(d + v * kVec, g);
#pragma unroll
      for (int i = 0; i < kVec; ++i) g[i] *= gelu_grad(f[i]);
    } else {
#pragma unroll
      for (int i = 0; i < kVec; ++i) g[i] = gelu(f[i]);
    }
    store8(d + v * kVec, g);
  }
  for (std::int64_t i = count / kVec * kVec + first; i < count; i += stride) {
    const float f = to_float(x[i]);
    d[i] = from_float<T>(kBackward ? to_float(d[i]) * gelu_grad(f) : gelu(f));
  }
}

template <bool kBackward>
cudaError_t launch(const void* x, std::int64_t count, void* d, KernelDType dtype,
                   cudaStream_t stream) {
  if (!aligned16(x) || !aligned16(d)) return cudaErrorInvalidValue;
  return dispatch_16bit(dtype, [&](auto tag) {
    using T = decltype(tag);
    gelu_kernel<T, kBackward><<<blocks_for(count / kVec + 1, 256, 65535u * 8u), 256, 0, stream>>>(
        static_cast<const T*>(x), count, static_cast<T*>(d));
    return cudaGetLastError();
  });
}

}  // namespace

cudaError_t gelu_forward(const void* x, std::int64_t count, void* y, KernelDType dtype,
                         cudaStream_t stream) {
  return launch<false>(x, count, y, dtype, stream);
}

cudaError_t gelu_backward_inplace(const void* x, std::int64_t count, void* d, KernelDType dtype,
                                  cudaStream_t stream) {
  return launch<true>(x, count, d, dtype, stream);
}

}  // namespace fa2b::model::cuda
