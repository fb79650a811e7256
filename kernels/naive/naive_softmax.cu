// SPDX-License-Identifier: Apache-2.0
// Stage 2: masked row softmax. Reads the float32 S row, writes P in the input dtype and the
// row's natural-log LSE. One warp per row; S is read twice (max/sum, then normalise) rather
// than cached, since a row can be arbitrarily long.
#include <cmath>

#include "naive/naive_common.cuh"

namespace fa2b {
namespace naive {
namespace {

constexpr int kWarps = 8;
constexpr int kPerLane = 8;  // contiguous elements per lane per step: one 16-byte P store
constexpr int kStep = 32 * kPerLane;
constexpr float kLog2e = 1.4426950408889634f;

// exp2 of (a - b) * log2(e), where b == -inf only when a is too (handled by the caller).
__device__ __forceinline__ float exp_diff(float a, float b) {
  return exp2f((a - b) * kLog2e);
}

template <typename T>
__global__ void __launch_bounds__(kWarps * 32) softmax_kernel(AttnParams p, const float* S, T* P) {
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const std::int64_t rows = static_cast<std::int64_t>(p.B) * p.H * p.T_q;
  const std::int64_t ldS = padded_ld(p.T_k), ldP = ldS;
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * kWarps + threadIdx.x / 32;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kWarps;

  for (std::int64_t row = first; row < rows; row += stride) {
    const int i = static_cast<int>(row % p.T_q);
    // Keys [key_first, n_valid) are visible; empty (n_valid <= key_first) for a row that sees none.
    const int key_first = first_key(p, i);
    // A padded variable-length batch masks the keys past the sequence's length (its rows are
    // self-attention ones, so the mask's diagonal is the sequence's too).
    const int last = last_key(p, i) + 1;
    const int n_valid = p.seqused != nullptr
                            ? min(last, p.seqused[row / (static_cast<std::int64_t>(p.H) * p.T_q)])
                            : last;
    const int key_first8 = key_first / kPerLane * kPerLane;
    const int n_end = round_up8(pv_key_end(p, i / kTileM));
    const float* s = S + row * ldS;
    T* out = P + row * ldP;

    // Pass 1: online max / sum of exp, each lane over its own columns, then merged. It reads
    // only the 8-column chunks that hold a visible key: the QK GEMM skips whole tiles before a
    // sliding window, and the tile holding a row's first visible key is never one of them.
    float m = -INFINITY, l = 0.0f;
    for (int j = key_first8 + lane * kPerLane; j < n_valid; j += kStep) {
      float x[kPerLane];
      // In-bounds even past n_valid: the row is padded to 8 and the tile holding j was written.
      const float4 a = *reinterpret_cast<const float4*>(s + j);
      const float4 b = *reinterpret_cast<const float4*>(s + j + 4);
      x[0] = a.x, x[1] = a.y, x[2] = a.z, x[3] = a.w, x[4] = b.x, x[5] = b.y, x[6] = b.z,
      x[7] = b.w;
      float mx = m;
#pragma unroll
      for (int e = 0; e < kPerLane; ++e) {
        if (j + e >= n_valid || j + e < key_first) x[e] = -INFINITY;
        mx = fmaxf(mx, x[e]);
      }
      float sum = 0.0f;
#pragma unroll
      for (int e = 0; e < kPerLane; ++e) sum += exp_diff(x[e], mx);
      l = l * exp_diff(m, mx) + sum;
      m = mx;
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
      const float m2 = __shfl_xor_sync(0xffffffffu, m, off);
      const float l2 = __shfl_xor_sync(0xffffffffu, l, off);
      const float mn = fmaxf(m, m2);
      if (mn != -INFINITY)
        l = (m == -INFINITY ? 0.0f : l * exp_diff(m, mn)) +
            (m2 == -INFINITY ? 0.0f : l2 * exp_diff(m2, mn));
      m = mn;
    }
    const bool empty = n_valid <= key_first;
    const float inv_l = empty ? 0.0f : 1.0f / l;
    if (lane == 0 && p.lse != nullptr) p.lse[row] = empty ? -INFINITY : m + logf(l);

    // Pass 2: normalised P over every column the PV GEMM will read, zero outside this row's
    // visible keys (so before a sliding window too: the GEMMs may read from column 0).
    for (int j = lane * kPerLane; j < n_end; j += kStep) {
      float x[kPerLane];
      if (j >= key_first8 && j < n_valid) {
        const float4 a = *reinterpret_cast<const float4*>(s + j);
        const float4 b = *reinterpret_cast<const float4*>(s + j + 4);
        x[0] = a.x, x[1] = a.y, x[2] = a.z, x[3] = a.w, x[4] = b.x, x[5] = b.y, x[6] = b.z,
        x[7] = b.w;
#pragma unroll
        for (int e = 0; e < kPerLane; ++e)
          x[e] = j + e < n_valid && j + e >= key_first ? exp_diff(x[e], m) * inv_l : 0.0f;
      } else {
#pragma unroll
        for (int e = 0; e < kPerLane; ++e) x[e] = 0.0f;
      }
      *reinterpret_cast<uint4*>(out + j) = pack8<T>(x);
    }
  }
}

}  // namespace

template <typename T>
cudaError_t launch_softmax(const AttnParams& p, const float* S, T* P, cudaStream_t stream) {
  const std::int64_t rows = static_cast<std::int64_t>(p.B) * p.H * p.T_q;
  const std::int64_t blocks = (rows + kWarps - 1) / kWarps;
  const std::int64_t cap = std::int64_t{1} << 30;  // rows beyond this are covered by the loop
  softmax_kernel<T>
      <<<static_cast<unsigned>(blocks < cap ? blocks : cap), kWarps * 32, 0, stream>>>(p, S, P);
  return cudaGetLastError();
}

template cudaError_t launch_softmax<__half>(const AttnParams&, const float*, __half*, cudaStream_t);
template cudaError_t launch_softmax<__nv_bfloat16>(const AttnParams&, const float*, __nv_bfloat16*,
                                                   cudaStream_t);

}  // namespace naive
}  // namespace fa2b
