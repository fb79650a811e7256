// SPDX-License-Identifier: Apache-2.0
// The combine step of fa2's split-KV forward (flash-attention's
// flash_fwd_splitkv_combine_kernel, simplified for the few rows of a decode step): merges the
// splits' float32 rows (each normalised by its own softmax sum) and log-sum-exps
// (fa2_split_kv.h) into O and LSE. With lse = log(sum_s exp(lse_s)), row = sum_s exp(lse_s -
// lse) * o_s; a split that saw no key (lse_s = -inf) weighs 0, and a row no split saw (every
// lse_s = -inf) outputs zeros and LSE = -inf, as the unsplit kernel does.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "common/attn_params.h"
#include "common/grid_dependency.cuh"
#include "common/mma.cuh"
#include "fa2/fa2_split_kv.h"

namespace fa2b {
namespace fa2 {

constexpr int kCombineWarps = 4;
constexpr int kCombineMaxHeadDim = 256;
// Splits whose rows a lane loads before it adds any of them: the loads of one batch are
// independent, so the walk over the splits pays one memory latency per batch, not per split.
constexpr int kCombineBatch = 8;

// One warp per output row (b, h, i), the lanes over pairs of d. The splits' log-sum-exps are
// reduced across the lanes first (lanes over splits), and each split's weight goes to shared
// memory; then every lane walks the splits for its columns, kCombineBatch at a time. A split
// that saw no key (weight 0) is not read: its workspace rows may hold anything.
template <typename T>
__global__ void __launch_bounds__(kCombineWarps * 32)
    fa2_fwd_combine_kernel(const AttnParams p, const Fa2SplitKv split) {
  constexpr int kPairs = kCombineMaxHeadDim / 64;  // float2 columns per lane
  __shared__ float weights[kCombineWarps][kFa2MaxSplits];
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const std::int64_t rows = static_cast<std::int64_t>(p.B) * p.H * p.T_q;
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * kCombineWarps + warp;
  // Launched as a dependent of the split kernel (programmatic dependent launch, sm_90): the
  // CTAs may start before it ends, and wait here until its writes are visible.
  grid_dependency_wait();
  if (row >= rows) return;

  float lse_max = -INFINITY;
  for (int s = lane; s < split.n_splits; s += 32) {
    lse_max = fmaxf(lse_max, split.lse_partial[s * rows + row]);
  }
#pragma unroll
  for (int off = 16; off > 0; off /= 2) {
    lse_max = fmaxf(lse_max, __shfl_xor_sync(0xffffffffu, lse_max, off));
  }
  float sum = 0.f;
  if (lse_max != -INFINITY) {
    for (int s = lane; s < split.n_splits; s += 32) {
      sum += expf(split.lse_partial[s * rows + row] - lse_max);
    }
  }
#pragma unroll
  for (int off = 16; off > 0; off /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, off);
  const float lse = lse_max == -INFINITY ? -INFINITY : lse_max + logf(sum);

  // Weights of the splits, 0 for one that saw no key (and for every split of a row no split
  // saw: its output is zeros, as the unsplit kernel's).
  for (int s = lane; s < split.n_splits; s += 32) {
    const float lse_s = split.lse_partial[s * rows + row];
    weights[warp][s] = lse_s == -INFINITY ? 0.f : expf(lse_s - lse);
  }
  __syncwarp();

  float acc[kPairs][2] = {};
  for (int s0 = 0; s0 < split.n_splits; s0 += kCombineBatch) {
    float w[kCombineBatch];
    float2 x[kCombineBatch][kPairs];
#pragma unroll
    for (int u = 0; u < kCombineBatch; ++u) {
      const int s = s0 + u;
      w[u] = s < split.n_splits ? weights[warp][s] : 0.f;
      const float* o_s = split.o_partial + (s * rows + row) * p.D;
#pragma unroll
      for (int q = 0; q < kPairs; ++q) {
        const int d = 2 * lane + 64 * q;
        x[u][q] = w[u] != 0.f && d < p.D ? *reinterpret_cast<const float2*>(o_s + d)
                                         : make_float2(0.f, 0.f);
      }
    }
#pragma unroll
    for (int u = 0; u < kCombineBatch; ++u) {
#pragma unroll
      for (int q = 0; q < kPairs; ++q) {
        acc[q][0] = fmaf(w[u], x[u][q].x, acc[q][0]);
        acc[q][1] = fmaf(w[u], x[u][q].y, acc[q][1]);
      }
    }
  }

  const std::int64_t i = row % p.T_q;
  const std::int64_t bh = row / p.T_q;
  T* o = static_cast<T*>(p.o) + (bh / p.H) * p.o_batch_stride + (bh % p.H) * p.o_head_stride +
         i * p.o_row_stride;
#pragma unroll
  for (int q = 0; q < kPairs; ++q) {
    const int d = 2 * lane + 64 * q;
    if (d < p.D) *reinterpret_cast<std::uint32_t*>(o + d) = pack2<T>(acc[q][0], acc[q][1]);
  }
  if (p.lse != nullptr && lane == 0) p.lse[row] = lse;  // LSE is [B, H, T_q]: index `row`
}

}  // namespace fa2
}  // namespace fa2b
