// SPDX-License-Identifier: Apache-2.0
// Backward stage 2: dS = P o (dP - D_i), D_i = rowsum(dO o O), one warp per (batch, head,
// query row). D_i is a D-long dot product, so each warp computes its own row's instead of a
// separate pass and a [B, H, T_q] buffer. Reads P (input dtype, the forward's) and dP
// (float32, backward stage 1) and writes dS (input dtype), all [B, H, T_q, ld(T_k)].
#include "naive/naive_common.cuh"

namespace fa2b {
namespace naive {
namespace {

constexpr int kWarps = 8;
constexpr int kPerLane = 8;  // contiguous columns per lane per step: one 16-byte dS store
constexpr int kStep = 32 * kPerLane;

template <typename T>
__global__ void __launch_bounds__(kWarps * 32)
    ds_kernel(AttnBwdParams p, const T* P, const float* dP, T* dS) {
  const AttnParams& f = p.fwd;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const std::int64_t rows = static_cast<std::int64_t>(f.B) * f.H * f.T_q;
  const std::int64_t ld = padded_ld(f.T_k);
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

    // Keys [key_first, n_valid) are visible; empty for a row that sees none.
    const int key_first = first_key(f, i);
    const int n_valid = last_key(f, i) + 1;
    const int key_first8 = key_first / kPerLane * kPerLane;
    // The columns the softmax wrote P for, which the dS K GEMM (launch_pv) reads.
    const int n_end = round_up8(pv_key_end(f, i / kTileM));
    const T* pr = P + row * ld;
    const float* dpr = dP + row * ld;
    T* out = dS + row * ld;
    for (int j = lane * kPerLane; j < n_end; j += kStep) {
      float x[kPerLane];
      if (j >= key_first8 && j < n_valid) {
        // [j, j + 8) lies inside P's written extent (j is a multiple of 8 below n_valid, and
        // n_valid <= n_end, a multiple of 8) and inside one 128-column dP tile the QK GEMM
        // wrote (it skips only tiles that no row of the row tile sees, and the tile holding
        // this row's first visible key is not one of them).
        union {
          uint4 v;
          T e[kPerLane];
        } pu;
        pu.v = *reinterpret_cast<const uint4*>(pr + j);
        const float4 a = *reinterpret_cast<const float4*>(dpr + j);
        const float4 c = *reinterpret_cast<const float4*>(dpr + j + 4);
        const float dp[kPerLane] = {a.x, a.y, a.z, a.w, c.x, c.y, c.z, c.w};
#pragma unroll
        for (int e = 0; e < kPerLane; ++e)
          x[e] = j + e < n_valid && j + e >= key_first ? to_float(pu.e[e]) * (dp[e] - di) : 0.0f;
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
cudaError_t launch_ds(const AttnBwdParams& p, const T* P, const float* dP, T* dS,
                      cudaStream_t stream) {
  const std::int64_t rows = static_cast<std::int64_t>(p.fwd.B) * p.fwd.H * p.fwd.T_q;
  const std::int64_t blocks = (rows + kWarps - 1) / kWarps;
  const std::int64_t cap = std::int64_t{1} << 30;  // rows beyond this are covered by the loop
  ds_kernel<T><<<static_cast<unsigned>(blocks < cap ? blocks : cap), kWarps * 32, 0, stream>>>(
      p, P, dP, dS);
  return cudaGetLastError();
}

template cudaError_t launch_ds<__half>(const AttnBwdParams&, const __half*, const float*, __half*,
                                       cudaStream_t);
template cudaError_t launch_ds<__nv_bfloat16>(const AttnBwdParams&, const __nv_bfloat16*,
                                              const float*, __nv_bfloat16*, cudaStream_t);

}  // namespace naive
}  // namespace fa2b
