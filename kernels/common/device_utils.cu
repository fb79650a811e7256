// SPDX-License-Identifier: Apache-2.0
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "common/device_utils.h"

namespace fa2b {
namespace {

__device__ __forceinline__ void store_as(void* base, std::int64_t off, KernelDType dt, float x) {
  switch (dt) {
    case KernelDType::fp16:
      static_cast<std::uint16_t*>(base)[off] = float_to_fp16(x);
      break;
    case KernelDType::bf16:
      static_cast<std::uint16_t*>(base)[off] = float_to_bf16(x);
      break;
    case KernelDType::fp32:
      static_cast<float*>(base)[off] = x;
      break;
  }
}

__global__ void fill_kernel(void* ptr, KernelDType dtype, int heads, int seq, int D,
                            std::int64_t total, std::int64_t batch_stride, std::int64_t head_stride,
                            std::int64_t row_stride, std::uint64_t seed, InputTensor tensor,
                            KernelInputDist dist) {
  for (std::int64_t idx = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
       idx < total; idx += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t d = idx % D;
    const std::int64_t t = (idx / D) % seq;
    const std::int64_t h = (idx / (static_cast<std::int64_t>(D) * seq)) % heads;
    const std::int64_t b = idx / (static_cast<std::int64_t>(D) * seq * heads);
    const float x = input_value(seed, tensor, static_cast<std::uint64_t>(idx), dist);
    store_as(ptr, b * batch_stride + h * head_stride + t * row_stride + d, dtype, x);
  }
}

__global__ void fill_paged_kernel(void* pool, KernelDType dtype, int heads, int seq, int D,
                                  int page_size, const std::int32_t* table, std::int64_t total,
                                  std::uint64_t seed, InputTensor tensor, KernelInputDist dist) {
  const std::int64_t pages_per_seq = (seq + page_size - 1) / page_size;
  for (std::int64_t idx = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
       idx < total; idx += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t d = idx % D;
    const std::int64_t row = idx / D;  // logical row ((b * heads + h) * seq + t)
    const std::int64_t t = row % seq;
    const std::int64_t h = (row / seq) % heads;
    const std::int64_t b = row / (static_cast<std::int64_t>(seq) * heads);
    const std::int64_t page = table[b * pages_per_seq + t / page_size];
    const float x = input_value(seed, tensor, static_cast<std::uint64_t>(idx), dist);
    store_as(pool, ((page * page_size + t % page_size) * heads + h) * D + d, dtype, x);
  }
}

__global__ void count_nonfinite_kernel(const void* ptr, KernelDType dtype, std::int64_t n,
                                       unsigned long long* count) {
  unsigned long long local = 0;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    bool bad;
    if (dtype == KernelDType::fp32) {
      bad = !isfinite(static_cast<const float*>(ptr)[i]);
    } else {
      const std::uint16_t h = static_cast<const std::uint16_t*>(ptr)[i];
      bad = dtype == KernelDType::fp16 ? ((h & 0x7c00u) == 0x7c00u) : ((h & 0x7f80u) == 0x7f80u);
    }
    local += bad ? 1 : 0;
  }
  for (int off = 16; off > 0; off >>= 1) local += __shfl_down_sync(0xffffffffu, local, off);
  if ((threadIdx.x & 31) == 0 && local != 0) atomicAdd(count, local);
}

int grid_for(std::int64_t n, int block) {
  const std::int64_t blocks = (n + block - 1) / block;
  return static_cast<int>(blocks < 65536 ? (blocks > 0 ? blocks : 1) : 65536);
}

}  // namespace

cudaError_t fill_inputs(void* ptr, KernelDType dtype, int B, int heads, int seq, int D,
                        std::int64_t batch_stride, std::int64_t head_stride,
                        std::int64_t row_stride, std::uint64_t seed, InputTensor tensor,
                        KernelInputDist dist, cudaStream_t stream) {
  const std::int64_t total = static_cast<std::int64_t>(B) * heads * seq * D;
  if (total == 0) return cudaSuccess;
  fill_kernel<<<grid_for(total, 256), 256, 0, stream>>>(
      ptr, dtype, heads, seq, D, total, batch_stride, head_stride, row_stride, seed, tensor, dist);
  return cudaGetLastError();
}

cudaError_t fill_paged_inputs(void* pool, KernelDType dtype, int B, int heads, int seq, int D,
                              int page_size, const std::int32_t* table, std::uint64_t seed,
                              InputTensor tensor, KernelInputDist dist, cudaStream_t stream) {
  const std::int64_t total = static_cast<std::int64_t>(B) * heads * seq * D;
  if (total == 0) return cudaSuccess;
  if (page_size <= 0) return cudaErrorInvalidValue;
  fill_paged_kernel<<<grid_for(total, 256), 256, 0, stream>>>(pool, dtype, heads, seq, D, page_size,
                                                              table, total, seed, tensor, dist);
  return cudaGetLastError();
}

cudaError_t count_nonfinite(const void* ptr, KernelDType dtype, std::int64_t n, std::int64_t* count,
                            cudaStream_t stream) {
  unsigned long long* d_count = nullptr;
  cudaError_t err = cudaMallocAsync(&d_count, sizeof *d_count, stream);
  if (err != cudaSuccess) return err;
  cudaMemsetAsync(d_count, 0, sizeof *d_count, stream);
  if (n > 0) count_nonfinite_kernel<<<grid_for(n, 256), 256, 0, stream>>>(ptr, dtype, n, d_count);
  err = cudaGetLastError();
  unsigned long long host = 0;
  if (err == cudaSuccess)
    err = cudaMemcpyAsync(&host, d_count, sizeof host, cudaMemcpyDeviceToHost, stream);
  if (err == cudaSuccess) err = cudaStreamSynchronize(stream);
  cudaFreeAsync(d_count, stream);
  *count = static_cast<std::int64_t>(host);
  return err;
}

}  // namespace fa2b
