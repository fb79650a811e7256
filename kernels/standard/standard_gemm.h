// SPDX-License-Identifier: Apache-2.0
// One cuBLAS strided-batched GEMM in cuBLAS's column-major terms, and the head batching the
// standard forward and backward share. Internal to kernels/standard/.
//
// Every row-major [rows x cols] matrix with row stride L (ours: Q, K, V, O, their gradients,
// and the [T_q, T_k] score-shaped buffers with L = T_k) is, to cuBLAS, a column-major
// [cols x rows] matrix with leading dimension L: the transposes in the products come from
// that, and are spelled out at each call.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "common/attn_params.h"
#include "standard/standard_status.h"

namespace fa2b {
namespace standard {

struct Gemm {
  cublasOperation_t ta = CUBLAS_OP_N, tb = CUBLAS_OP_N;
  int m = 0, n = 0, k = 0;
  const void* a = nullptr;
  cudaDataType_t at = CUDA_R_16F;
  int lda = 0;
  long long sa = 0;
  const void* b = nullptr;
  cudaDataType_t bt = CUDA_R_16F;
  int ldb = 0;
  long long sb = 0;
  void* c = nullptr;
  cudaDataType_t ct = CUDA_R_32F;
  int ldc = 0;
  long long sc = 0;
  int batch = 0;
  float alpha = 1.0f;
  float beta = 0.0f;
};

inline cublasStatus_t run_gemm(cublasHandle_t handle, const Gemm& g) {
  return cublasGemmStridedBatchedEx(handle, g.ta, g.tb, g.m, g.n, g.k, &g.alpha, g.a, g.at, g.lda,
                                    g.sa, g.b, g.bt, g.ldb, g.sb, &g.beta, g.c, g.ct, g.ldc, g.sc,
                                    g.batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

inline cudaDataType_t io_type(const AttnParams& p) {
  return p.dtype == KernelDType::bf16 ? CUDA_R_16BF : CUDA_R_16F;
}

// Element offsets into a 16-bit tensor, as the byte pointers cuBLAS takes.
inline const char* at16(const void* base, std::int64_t elems) {
  return static_cast<const char*>(base) + elems * 2;
}
inline char* at16(void* base, std::int64_t elems) {
  return static_cast<char*>(base) + elems * 2;
}

// Query head h = hk * G + g uses KV head hk (G = H / H_kv). Each GEMM runs once per
// (batch b, position g in the group), batched over the H_kv heads hk: query-head tensors then
// step by G heads, KV-head tensors by one, and the [B, H, T_q, T_k] buffers by G tiles. That
// one shape covers GQA (G > 1), plain multi-head (G = 1: one call of H heads per batch), bhsd
// and bshd, in B * G calls per GEMM.
struct GroupSlice {
  int b = 0, g = 0, G = 1;
  std::int64_t q_head0 = 0;  // b * H + g: first query head's index in [B, H]
  long long tile = 0;        // T_q * T_k: one head's score-shaped matrix
};

// Calls f(slice) for every (b, g); stops at the first failure and returns it.
template <typename F>
StandardStatus for_each_group_slice(const AttnParams& p, F&& f) {
  GroupSlice s;
  s.G = p.H / p.H_kv;
  s.tile = static_cast<long long>(p.T_q) * p.T_k;
  for (s.b = 0; s.b < p.B; ++s.b) {
    for (s.g = 0; s.g < s.G; ++s.g) {
      s.q_head0 = static_cast<std::int64_t>(s.b) * p.H + s.g;
      const StandardStatus st = f(s);
      if (!st.ok()) return st;
    }
  }
  return {};
}

inline StandardStatus gemm_status(cublasStatus_t s, const char* step) {
  StandardStatus st;
  st.cublas = s;
  if (s != CUBLAS_STATUS_SUCCESS) st.step = step;
  return st;
}
inline StandardStatus cuda_status(cudaError_t e, const char* step) {
  StandardStatus st;
  st.cuda = e;
  if (e != cudaSuccess) st.step = step;
  return st;
}

}  // namespace standard
}  // namespace fa2b
