// SPDX-License-Identifier: Apache-2.0
// The standard backward's elementwise kernels: dS (with its D_i) and the rounding of the GQA
// dK/dV float32 accumulators. Rows of T_k elements carry no alignment guarantee (T_k may be
// odd), so both use scalar, coalesced accesses.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "common/float_convert.cuh"
#include "core/mask_rule.h"
#include "standard/standard_bwd_kernels.h"

namespace fa2b {
namespace standard {
namespace {

constexpr int kWarps = 8;
constexpr std::int64_t kMaxBlocks = std::int64_t{1} << 30;  // grid-stride loops cover the rest

// One warp per (batch, head, query row).
template <typename T>
__global__ void __launch_bounds__(kWarps * 32)
    ds_kernel(AttnBwdParams p, const T* __restrict__ P, const float* __restrict__ dP,
              T* __restrict__ dS) {
  const AttnParams& f = p.fwd;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const std::int64_t rows = static_cast<std::int64_t>(f.B) * f.H * f.T_q;
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * kWarps + threadIdx.x / 32;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kWarps;
  for (std::int64_t row = first; row < rows; row += stride) {
    const std::int64_t bh = row / f.T_q;
    const int i = static_cast<int>(row % f.T_q);
    const std::int64_t b = bh / f.H, h = bh % f.H;
    // dO is laid out like O: both use O's strides.
    const std::int64_t o_off = b * f.o_batch_stride + h * f.o_head_stride + i * f.o_row_stride;
    const T* o = static_cast<const T*>(f.o) + o_off;
    const T* d_o = static_cast<const T*>(p.d_o) + o_off;
    float di = 0.0f;
    for (int d = lane; d < f.D; d += 32) di += to_float(o[d]) * to_float(d_o[d]);
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) di += __shfl_xor_sync(0xffffffffu, di, off);

    // Keys [0, n) are visible (bottom-right causal); n <= 0 when none.
    int n = f.T_k;
    if (f.causal) {
      const int diag = i + mask_diag(f) + 1;
      n = diag < f.T_k ? diag : f.T_k;
    }
    const std::int64_t base = row * f.T_k;
    for (int j = lane; j < f.T_k; j += 32) {
      const float ds = j < n ? to_float(P[base + j]) * (dP[base + j] - di) : 0.0f;
      dS[base + j] = from_float<T>(ds);
    }
  }
}

template <typename T>
__global__ void __launch_bounds__(256)
    round_kernel(AttnParams p, const float* __restrict__ acc, T* __restrict__ out,
                 std::int64_t batch_stride, std::int64_t head_stride, std::int64_t row_stride) {
  const std::int64_t n = static_cast<std::int64_t>(p.B) * p.H_kv * p.T_k * p.D;
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < n;
       e += step) {
    const std::int64_t d = e % p.D, row = e / p.D;  // row = (b*H_kv + hk)*T_k + j
    const std::int64_t j = row % p.T_k, bhk = row / p.T_k;
    const std::int64_t b = bhk / p.H_kv, hk = bhk % p.H_kv;
    out[b * batch_stride + hk * head_stride + j * row_stride + d] = from_float<T>(acc[e]);
  }
}

unsigned blocks_for(std::int64_t work, std::int64_t per_block) {
  const std::int64_t blocks = (work + per_block - 1) / per_block;
  return static_cast<unsigned>(blocks < kMaxBlocks ? blocks : kMaxBlocks);
}

}  // namespace

cudaError_t launch_ds(const AttnBwdParams& p, const void* P, const float* dP, void* dS,
                      cudaStream_t stream) {
  const std::int64_t rows = static_cast<std::int64_t>(p.fwd.B) * p.fwd.H * p.fwd.T_q;
  const unsigned grid = blocks_for(rows, kWarps);
  if (p.fwd.dtype == KernelDType::bf16) {
    ds_kernel<__nv_bfloat16><<<grid, kWarps * 32, 0, stream>>>(
        p, static_cast<const __nv_bfloat16*>(P), dP, static_cast<__nv_bfloat16*>(dS));
  } else {
    ds_kernel<__half><<<grid, kWarps * 32, 0, stream>>>(p, static_cast<const __half*>(P), dP,
                                                        static_cast<__half*>(dS));
  }
  return cudaGetLastError();
}

cudaError_t launch_round_kv(const AttnParams& p, const float* acc, void* out,
                            std::int64_t batch_stride, std::int64_t head_stride,
                            std::int64_t row_stride, cudaStream_t stream) {
  const std::int64_t n = static_cast<std::int64_t>(p.B) * p.H_kv * p.T_k * p.D;
  const unsigned grid = blocks_for(n, 256);
  if (p.dtype == KernelDType::bf16) {
    round_kernel<__nv_bfloat16><<<grid, 256, 0, stream>>>(p, acc, static_cast<__nv_bfloat16*>(out),
                                                          batch_stride, head_stride, row_stride);
  } else {
    round_kernel<__half><<<grid, 256, 0, stream>>>(p, acc, static_cast<__half*>(out), batch_stride,
                                                   head_stride, row_stride);
  }
  return cudaGetLastError();
}

}  // namespace standard
}  // namespace fa2b
