// SPDX-License-Identifier: Apache-2.0
// The three launches of the fa3 backward on one stream: its preprocessing pass (D_i and
// LSE·log2(e) in padded rows the copy engine can load, the fp32 dQ accumulator zeroed), the main
// kernel, and the shared pass converting the accumulator to dQ (common/bwd_row_passes.cuh).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "common/attn_params.h"
#include "common/bwd_row_passes.cuh"
#include "fa3/fa3_bwd_traits.h"

namespace fa2b {
namespace fa3 {

// One warp per row of the padded statistics (B·H rows of fa3_bwd_stat_pitch(T_q) entries):
// d_sum = rowsum(dO ∘ O) and lse_log2 = LSE·log2(e) of query row i, zeros past T_q (the rows a
// last query block reads past the sequence: zero Q and dO meet them), and the row's dQ
// accumulator zeroed.
template <typename T, int kHeadDim>
__global__ void __launch_bounds__(256)
    fa3_bwd_preprocess(const AttnBwdParams p, float* dq_accum, float* lse_log2, float* d_sum) {
  const int T_q = p.fwd.T_q;
  const int pitch = fa3_bwd_stat_pitch(T_q);
  const std::int64_t rows = static_cast<std::int64_t>(p.fwd.B) * p.fwd.H * pitch;
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * 8 + threadIdx.x / 32;
  const int lane = static_cast<int>(threadIdx.x % 32);
  if (row >= rows) return;
  const int i = static_cast<int>(row % pitch);
  const std::int64_t bh = row / pitch;
  if (i >= T_q) {
    if (lane == 0) d_sum[row] = lse_log2[row] = 0.f;
    return;
  }
  const int h = static_cast<int>(bh % p.fwd.H);
  const int b = static_cast<int>(bh / p.fwd.H);
  const float sum = row_dot_do_o<T, kHeadDim>(p, b, h, i, lane);
  const std::int64_t q_row = bh * T_q + i;
  if (lane == 0) {
    d_sum[row] = sum;
    lse_log2[row] = p.fwd.lse[q_row] * 1.4426950408889634f;
  }
  zero_accum_row<kHeadDim>(dq_accum + q_row * kHeadDim, lane);
}

}  // namespace fa3

// `launch_main()` launches the main kernel and returns its launch error.
template <typename T, int kHeadDim, typename LaunchMain>
cudaError_t run_fa3_bwd_passes(const AttnBwdParams& p, float* dq_accum, float* lse_log2,
                               float* d_sum, cudaStream_t stream, LaunchMain&& launch_main) {
  const long long stat_rows =
      static_cast<long long>(p.fwd.B) * p.fwd.H * fa3_bwd_stat_pitch(p.fwd.T_q);
  fa3::fa3_bwd_preprocess<T, kHeadDim>
      <<<static_cast<unsigned>((stat_rows + 7) / 8), 256, 0, stream>>>(p, dq_accum, lse_log2,
                                                                       d_sum);
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return err;
  err = launch_main();
  if (err != cudaSuccess) return err;
  const long long chunks =
      static_cast<long long>(p.fwd.B) * p.fwd.H * p.fwd.T_q * dq_row_chunks<kHeadDim>(p);
  bwd_convert_dq<T, kHeadDim>
      <<<static_cast<unsigned>((chunks + 255) / 256), 256, 0, stream>>>(p, dq_accum);
  return cudaGetLastError();
}

}  // namespace fa2b
