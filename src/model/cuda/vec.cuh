// SPDX-License-Identifier: Apache-2.0
// 16-byte vectors of eight fp16/bf16 elements, widened to float32, for the step's memory-bound
// kernels; and the dtype dispatch of their launchers.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "common/attn_params.h"
#include "common/float_convert.cuh"

namespace fa2b::model::cuda {

inline constexpr int kVec = 8;  // elements per 16-byte vector

template <typename T>
__device__ __forceinline__ void load8(const T* p, float (&f)[kVec]) {
  const uint4 raw = *reinterpret_cast<const uint4*>(p);
  const T* e = reinterpret_cast<const T*>(&raw);
#pragma unroll
  for (int i = 0; i < kVec; ++i) f[i] = to_float(e[i]);
}

template <typename T>
__device__ __forceinline__ void store8(T* p, const float (&f)[kVec]) {
  uint4 raw;
  T* e = reinterpret_cast<T*>(&raw);
#pragma unroll
  for (int i = 0; i < kVec; ++i) e[i] = from_float<T>(f[i]);
  *reinterpret_cast<uint4*>(p) = raw;
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

inline bool aligned16(const void* p) {
  return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0;
}

inline unsigned blocks_for(std::int64_t work, int per_block, unsigned cap = 65535u * 16u) {
  const std::int64_t b = (work + per_block - 1) / per_block;
  return static_cast<unsigned>(b < 1 ? 1 : (b > cap ? cap : b));
}

// Calls f(T{}) with T the storage type of `dtype` (fp16 or bf16).
template <typename F>
cudaError_t dispatch_16bit(KernelDType dtype, F&& f) {
  if (dtype == KernelDType::bf16) return f(__nv_bfloat16{});
  if (dtype == KernelDType::fp16) return f(__half{});
  return cudaErrorInvalidValue;
}

}  // namespace fa2b::model::cuda
