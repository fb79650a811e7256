// SPDX-License-Identifier: Apache-2.0
// AdamW over the flat parameter buffer in one pass: param, grad, m, v in fp16/bf16 (PyTorch's
// AdamW keeps exp_avg / exp_avg_sq in the parameter's dtype), float32 math, each stored value
// rounded once. The formula is model::adamw_update's (src/model/elementwise.cpp).
#include "model/cuda/model_kernels.h"
#include "model/cuda/vec.cuh"

namespace fa2b::model::cuda {
namespace {

__device__ __forceinline__ void adamw_one(float& p, float g, float& m, float& v,
                                          const AdamWArgs& a) {
  p -= a.lr * a.weight_decay * p;
  m = a.beta1 * m + (1.0f - a.beta1) * g;
  v = a.beta2 * v + (1.0f - a.beta2) * g * g;
  p -= a.lr * (m / a.bc1) / (sqrtf(v / a.bc2) + a.eps);
}

template <typename T>
__global__ void adamw_kernel(T* __restrict__ param, const T* __restrict__ grad, T* __restrict__ m,
                             T* __restrict__ v, std::int64_t count, AdamWArgs a) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const std::int64_t first = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  for (std::int64_t i = first; i < count / kVec; i += stride) {
    float p[kVec], g[kVec], mm[kVec], vv[kVec];
    load8(param + i * kVec, p);
    load8(grad + i * kVec, g);
    load8(m + i * kVec, mm);
    load8(v + i * kVec, vv);
#pragma unroll
    for (int k = 0; k < kVec; ++k) adamw_one(p[k], g[k], mm[k], vv[k], a);
    store8(param + i * kVec, p);
    store8(m + i * kVec, mm);
    store8(v + i * kVec, vv);
  }
  for (std::int64_t i = count / kVec * kVec + first; i < count; i += stride) {
    float p = to_float(param[i]), mm = to_float(m[i]), vv = to_float(v[i]);
    adamw_one(p, to_float(grad[i]), mm, vv, a);
    param[i] = from_float<T>(p);
    m[i] = from_float<T>(mm);
    v[i] = from_float<T>(vv);
  }
}

}  // namespace

cudaError_t adamw_update(void* param, const void* grad, void* m, void* v, std::int64_t count,
                         const AdamWArgs& a, KernelDType dtype, cudaStream_t stream) {
  if (!aligned16(param) || !aligned16(grad) || !aligned16(m) || !aligned16(v))
    return cudaErrorInvalidValue;
  return dispatch_16bit(dtype, [&](auto tag) {
    using T = decltype(tag);
    adamw_kernel<T><<<blocks_for(count / kVec + 1, 256, 65535u * 8u), 256, 0, stream>>>(
        static_cast<T*>(param), static_cast<const T*>(grad), static_cast<T*>(m), static_cast<T*>(v),
        count, a);
    return cudaGetLastError();
  });
}

}  // namespace fa2b::model::cuda
