// SPDX-License-Identifier: Apache-2.0
// The per-query-row work around a flash-style backward's main kernel, shared by every family
// (fa2 and fa3 differ in their main kernels and preprocessing layouts, not in these):
// D_i = rowsum(dO o O) of one row (row_dot_do_o), one row of the fp32 dQ accumulator zeroed
// (zero_accum_row), both called by each family's preprocessing kernel, and the post-pass kernel
// bwd_convert_dq (scale * accumulator -> dQ in Q's layout), launched as is by both.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "common/attn_params.h"
#include "common/mma.cuh"

namespace fa2b {

// Eight b16 values as floats.
template <typename T>
__device__ __forceinline__ void unpack8(const uint4& raw, float (&out)[8]) {
  const T* h = reinterpret_cast<const T*>(&raw);
#pragma unroll
  for (int i = 0; i < 8; ++i) out[i] = static_cast<float>(h[i]);
}

// The 16-byte chunks of a row of O, dO or dQ: p.fwd.D / 8, fewer than kHeadDim / 8 when a head
// dim runs padded into a wider tile (fa2_padded_head_dim), whose dQ accumulator rows stay
// kHeadDim wide. D_i reads, and bwd_convert_dq writes, these chunks only.
template <int kHeadDim>
__host__ __device__ __forceinline__ int dq_row_chunks(const AttnBwdParams& p) {
  return (p.fwd.D < kHeadDim ? p.fwd.D : kHeadDim) / 8;
}

// sum_d dO[i, d] * O[i, d] of query row i of (b, h), summed over the warp (every lane gets it).
template <typename T, int kHeadDim>
__device__ __forceinline__ float row_dot_do_o(const AttnBwdParams& p, int b, int h, int i,
                                              int lane) {
  const int chunks = dq_row_chunks<kHeadDim>(p);
  const std::int64_t off =
      b * p.fwd.o_batch_stride + h * p.fwd.o_head_stride + i * p.fwd.o_row_stride;
  float sum = 0.f;
  if (lane < chunks) {
    float o[8], d_o[8];
    unpack8<T>(*reinterpret_cast<const uint4*>(static_cast<const T*>(p.fwd.o) + off + lane * 8), o);
    unpack8<T>(*reinterpret_cast<const uint4*>(static_cast<const T*>(p.d_o) + off + lane * 8), d_o);
#pragma unroll
    for (int e = 0; e < 8; ++e) sum = fmaf(o[e], d_o[e], sum);
  }
#pragma unroll
  for (int w = 16; w > 0; w >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, w);
  return sum;
}

// Row i of sequence b in the tensors of a variable-length batch (a packed sequence starts at
// cu_seqlens_q[b] of tensors with batch stride 0), -1 past the sequence's length; i itself for a
// dense batch. The backward's workspaces keep dense [B, H, T_q] rows for every packing.
__device__ __forceinline__ int varlen_tensor_row(const AttnParams& p, int b, int i) {
  if (p.cu_seqlens_q != nullptr) {
    const int start = p.cu_seqlens_q[b];
    return i < p.cu_seqlens_q[b + 1] - start ? start + i : -1;
  }
  if (p.seqused != nullptr) return i < p.seqused[b] ? i : -1;
  return i;
}

// Zeroes the kHeadDim fp32 accumulators of one row, the warp's lanes taking 16 bytes each.
template <int kHeadDim>
__device__ __forceinline__ void zero_accum_row(float* acc_row, int lane) {
  float4* acc = reinterpret_cast<float4*>(acc_row);
  for (int c = lane; c < kHeadDim / 4; c += 32) acc[c] = make_float4(0.f, 0.f, 0.f, 0.f);
}

// dQ = scale * accumulator, eight elements per thread, in Q's layout; launch
// rows * dq_row_chunks threads.
template <typename T, int kHeadDim>
__global__ void __launch_bounds__(256)
    bwd_convert_dq(const AttnBwdParams p, const float* dq_accum) {
  const int chunks = dq_row_chunks<kHeadDim>(p);
  const std::int64_t idx = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t rows = static_cast<std::int64_t>(p.fwd.B) * p.fwd.H * p.fwd.T_q;
  if (idx >= rows * chunks) return;
  const std::int64_t row = idx / chunks;
  const int c = static_cast<int>(idx % chunks);
  const int i = static_cast<int>(row % p.fwd.T_q);
  const std::int64_t bh = row / p.fwd.T_q;
  const int h = static_cast<int>(bh % p.fwd.H);
  const int b = static_cast<int>(bh / p.fwd.H);
  // A variable-length batch: a packed sequence's rows past its length are not in dQ (the next
  // sequence's follow), a padded one's are written as zeros (the accumulator's are zero).
  int q_row = varlen_tensor_row(p.fwd, b, i);
  if (q_row < 0) {
    if (p.fwd.cu_seqlens_q != nullptr) return;
    q_row = i;
  }
  const float4* src = reinterpret_cast<const float4*>(dq_accum + row * kHeadDim + c * 8);
  const float4 lo = src[0], hi = src[1];
  const float s = p.fwd.scale;
  uint4 out;
  out.x = pack2<T>(lo.x * s, lo.y * s);
  out.y = pack2<T>(lo.z * s, lo.w * s);
  out.z = pack2<T>(hi.x * s, hi.y * s);
  out.w = pack2<T>(hi.z * s, hi.w * s);
  T* dq = static_cast<T*>(p.d_q) + b * p.fwd.q_batch_stride + h * p.fwd.q_head_stride +
          static_cast<std::int64_t>(q_row) * p.fwd.q_row_stride + c * 8;
  *reinterpret_cast<uint4*>(dq) = out;
}

}  // namespace fa2b
