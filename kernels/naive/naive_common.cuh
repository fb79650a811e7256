// SPDX-License-Identifier: Apache-2.0
// Shared pieces of the three naive stages: tile shape, workspace layout, the mask bounds
// (causal, sliding window) each stage must agree on, and a few device helpers. Internal to
// kernels/naive/.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "common/attn_mask.h"
#include "common/attn_params.h"
#include "common/float_convert.cuh"

namespace fa2b {
namespace naive {

// Both GEMMs use 128x128 output tiles, K chunks of 32, 8 warps each owning a 64x32 sub-tile.
constexpr int kTileM = 128;
constexpr int kTileN = 128;
constexpr int kTileK = 32;
constexpr int kThreads = 256;
constexpr int kWarpM = 64;
constexpr int kWarpN = 32;
// Shared-memory row padding (elements): keeps WMMA loads off a single bank group while leaving
// every row 16-byte aligned for cp.async.
constexpr int kSmemPad = 8;
// Grid y holds (batch, head) pairs; the kernels loop when B*H exceeds the y limit.
constexpr int kMaxGridY = 65535;

// S and P rows are padded to a multiple of 8 elements so every row starts 16-byte aligned
// (P in 16-bit types) and the GEMMs can move them with 16-byte copies.
__host__ __device__ __forceinline__ std::int64_t padded_ld(int T_k) {
  return (static_cast<std::int64_t>(T_k) + 7) / 8 * 8;
}

// First and last key index query row i sees (common/attn_mask.h: bottom-right causal and
// sliding window); last < first (last < 0) when it sees none.
__host__ __device__ __forceinline__ int first_key(const AttnParams& p, int i) {
  return static_cast<int>(first_visible_key(p, i));
}
__host__ __device__ __forceinline__ int last_key(const AttnParams& p, int i) {
  return static_cast<int>(last_visible_key(p, i));
}

// Keys [0, end) that the PV GEMM may read for query-row tile m: everything up to the last key
// any row of the tile sees. The softmax writes P (zeros outside each row's visible keys, so
// also before a sliding window) for exactly these columns, rounded up to 8, so the GEMM never
// reads P that nobody wrote.
__host__ __device__ __forceinline__ int pv_key_end(const AttnParams& p, int m) {
  const int last_row = (m + 1) * kTileM < p.T_q ? (m + 1) * kTileM - 1 : p.T_q - 1;
  const int end = last_key(p, last_row) + 1;
  return end > 0 ? end : 0;
}

// The first key the PV GEMM reads for tile m, a multiple of kTileK: P is zero before the
// first key its first row sees (rows further down see later keys), so a sliding window's
// GEMM starts there instead of at key 0.
__host__ __device__ __forceinline__ int pv_key_begin(const AttnParams& p, int m) {
  return first_key(p, m * kTileM) / kTileK * kTileK;
}

__host__ __device__ __forceinline__ int round_up8(int x) {
  return (x + 7) / 8 * 8;
}

// 16-byte global->shared copy; when `pred` is false the destination is zero-filled and the
// source is not read (callers still pass an in-bounds address).
__device__ __forceinline__ void cp_async16(void* smem, const void* gmem, bool pred) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  const int n = pred ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(n)
               : "memory");
}
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// Packs 8 floats into one 16-byte vector of T.
template <typename T>
__device__ __forceinline__ uint4 pack8(const float* x) {
  union {
    uint4 v;
    T e[8];
  } u;
#pragma unroll
  for (int i = 0; i < 8; ++i) u.e[i] = from_float<T>(x[i]);
  return u.v;
}

// Stage launchers, one per file, instantiated for __half and __nv_bfloat16.
template <typename T>
cudaError_t launch_qk(const AttnParams& p, float* S, cudaStream_t stream);
template <typename T>
cudaError_t launch_softmax(const AttnParams& p, const float* S, T* P, cudaStream_t stream);
// O = alpha * P V (alpha = 1 in the forward; the backward reuses it for dQ = scale * dS K).
template <typename T>
cudaError_t launch_pv(const AttnParams& p, const T* P, float alpha, cudaStream_t stream);

// Backward stages (naive_bwd_*.cu, naive_gemm_tn.cu).
// dS = P o (dP - D_i) with D_i = rowsum(dO o O) computed on the fly, written for exactly the
// columns the softmax wrote P for (zeros past each row's mask), so dS K reads what P V did.
template <typename T>
cudaError_t launch_ds(const AttnBwdParams& p, const T* P, const float* dP, T* dS,
                      cudaStream_t stream);
// C = alpha * sum over the query heads of each KV head's group of A^T B: A [B*H, T_q, ld(T_k)]
// is P or dS as the softmax / launch_ds wrote it, B is [T_q, D] per query head (Q or dO), C is
// [T_k, D] per KV head (dK or dV), all in T.
struct TnOperands {
  const void* b = nullptr;  // Q or dO
  std::int64_t b_batch_stride = 0, b_head_stride = 0, b_row_stride = 0;
  void* c = nullptr;  // dK or dV
  std::int64_t c_batch_stride = 0, c_head_stride = 0, c_row_stride = 0;
  float alpha = 1.0f;
};
template <typename T>
cudaError_t launch_tn(const AttnParams& p, const T* A, const TnOperands& ops, cudaStream_t stream);

}  // namespace naive
}  // namespace fa2b
