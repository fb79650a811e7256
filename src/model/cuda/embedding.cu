// SPDX-License-Identifier: Apache-2.0
// Token embedding forward (a gather of rows) and backward (zero, then one deterministic sum per
// distinct token over the batch's token index; no atomics).
#include <algorithm>

#include "model/cuda/model_kernels.h"
#include "model/cuda/vec.cuh"

namespace fa2b::model::cuda {
namespace {

template <typename T>
__global__ void embedding_forward_kernel(const std::int32_t* __restrict__ tokens, std::int64_t n,
                                         const T* __restrict__ table, std::int64_t h,
                                         T* __restrict__ y) {
  const std::int64_t vecs = h / kVec;
  const std::int64_t total = n * vecs;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t r = i / vecs, c = (i % vecs) * kVec;
    const std::int64_t t = tokens[r];
    *reinterpret_cast<uint4*>(y + r * h + c) = *reinterpret_cast<const uint4*>(table + t * h + c);
  }
}

// blockIdx.y: one segment (distinct token); each thread owns eight columns and sums the rows
// of its segment's positions in position order.
template <typename T>
__global__ void embedding_backward_kernel(const std::int32_t* __restrict__ order,
                                          const std::int32_t* __restrict__ seg_start,
                                          const std::int32_t* __restrict__ seg_token,
                                          const T* __restrict__ dy, std::int64_t h,
                                          T* __restrict__ dtable) {
  const std::int64_t c = (blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x) * kVec;
  if (c >= h) return;
  const int s = blockIdx.y;
  float acc[kVec] = {};
  for (int k = seg_start[s]; k < seg_start[s + 1]; ++k) {
    float f[kVec];
    load8(dy + static_cast<std::int64_t>(order[k]) * h + c, f);
#pragma unroll
    for (int i = 0; i < kVec; ++i) acc[i] += f[i];
  }
  store8(dtable + static_cast<std::int64_t>(seg_token[s]) * h + c, acc);
}

}  // namespace

cudaError_t embedding_forward(const std::int32_t* tokens, std::int64_t n, const void* table,
                              std::int64_t h, void* y, KernelDType dtype, cudaStream_t stream) {
  if (h % kVec != 0) return cudaErrorInvalidValue;
  return dispatch_16bit(dtype, [&](auto tag) {
    using T = decltype(tag);
    embedding_forward_kernel<T><<<blocks_for(n * (h / kVec), 256), 256, 0, stream>>>(
        tokens, n, static_cast<const T*>(table), h, static_cast<T*>(y));
    return cudaGetLastError();
  });
}

cudaError_t embedding_backward(const TokenIndexView& index, const void* dy, std::int64_t vocab,
                               std::int64_t h, void* dtable, KernelDType dtype,
                               cudaStream_t stream) {
  if (h % kVec != 0 || index.segments > 65535 * 1024LL) return cudaErrorInvalidValue;
  const cudaError_t zero =
      cudaMemsetAsync(dtable, 0, static_cast<std::size_t>(vocab * h) * 2, stream);
  if (zero != cudaSuccess || index.segments == 0) return zero;
  return dispatch_16bit(dtype, [&](auto tag) {
    using T = decltype(tag);
    const int threads = 128;
    std::int64_t done = 0;
    // gridDim.y is at most 65535: launch the segments in slices.
    while (done < index.segments) {
      const std::int64_t slice = std::min<std::int64_t>(index.segments - done, 65535);
      const dim3 grid(blocks_for(h / kVec, threads), static_cast<unsigned>(slice));
      embedding_backward_kernel<T><<<grid, threads, 0, stream>>>(
          index.order, index.seg_start + done, index.seg_token + done, static_cast<const T*>(dy), h,
          static_cast<T*>(dtable));
      const cudaError_t e = cudaGetLastError();
      if (e != cudaSuccess) return e;
      done += slice;
    }
    return cudaSuccess;
  });
}

}  // namespace fa2b::model::cuda
