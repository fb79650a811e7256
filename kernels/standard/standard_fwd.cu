// SPDX-License-Identifier: Apache-2.0
// Host code only (nvcc compiles it with the host compiler): the standard forward's two cuBLAS
// GEMMs around standard_softmax. See standard_gemm.h for the column-major conventions.
#include <climits>
#include <cstdint>

#include "standard/standard_fwd.h"
#include "standard/standard_gemm.h"
#include "standard/standard_softmax.h"

namespace fa2b {

bool standard_supported(const AttnParams& p, std::string* why) {
  auto fail = [why](const char* msg) {
    if (why != nullptr) *why = msg;
    return false;
  };
  if (p.dtype != KernelDType::fp16 && p.dtype != KernelDType::bf16) {
    return fail("standard supports fp16 and bf16");
  }
  if (p.B < 1 || p.H < 1 || p.H_kv < 1 || p.T_q < 1 || p.T_k < 1 || p.D < 1) {
    return fail("standard needs B, H, H_kv, T_q, T_k, D >= 1");
  }
  if (p.H % p.H_kv != 0) return fail("standard needs H to be a multiple of H_kv");
  const std::int64_t lds[] = {p.q_row_stride, p.k_row_stride, p.v_row_stride, p.o_row_stride};
  for (std::int64_t ld : lds) {
    if (ld < p.D || ld > INT_MAX) {
      return fail("standard needs row strides in [D, 2^31-1] (cuBLAS leading dimensions)");
    }
  }
  return true;
}

std::size_t standard_s_bytes(const AttnParams& p) {
  return static_cast<std::size_t>(p.B) * static_cast<std::size_t>(p.H) *
         static_cast<std::size_t>(p.T_q) * static_cast<std::size_t>(p.T_k) * sizeof(float);
}

std::size_t standard_p_bytes(const AttnParams& p) {
  return standard_s_bytes(p) / 2;  // the 16-bit input dtype
}

StandardStatus standard_attention_fwd(const AttnParams& p, float* S, void* P,
                                      cublasHandle_t handle) {
  using standard::Gemm;
  using standard::GroupSlice;
  if (!standard_supported(p, nullptr) || S == nullptr || P == nullptr) {
    return standard::cuda_status(cudaErrorInvalidValue, "standard_attention_fwd arguments");
  }
  const cudaDataType_t io = standard::io_type(p);

  // S^T (T_k x T_q, ld T_k) = K (D x T_k)^T * Q (D x T_q), times scale, per query head.
  StandardStatus st = standard::for_each_group_slice(p, [&](const GroupSlice& s) {
    Gemm g;
    g.ta = CUBLAS_OP_T, g.tb = CUBLAS_OP_N;
    g.m = p.T_k, g.n = p.T_q, g.k = p.D;
    g.a = standard::at16(p.k, s.b * p.k_batch_stride), g.at = io;
    g.lda = static_cast<int>(p.k_row_stride), g.sa = p.k_head_stride;
    g.b = standard::at16(p.q, s.b * p.q_batch_stride + s.g * p.q_head_stride), g.bt = io;
    g.ldb = static_cast<int>(p.q_row_stride), g.sb = s.G * p.q_head_stride;
    g.c = S + s.q_head0 * s.tile, g.ct = CUDA_R_32F;
    g.ldc = p.T_k, g.sc = s.G * s.tile;
    g.batch = p.H_kv;
    g.alpha = p.scale;
    return standard::gemm_status(standard::run_gemm(handle, g), "S = scale Q K^T");
  });
  if (!st.ok()) return st;

  cudaStream_t stream = nullptr;
  st = standard::gemm_status(cublasGetStream(handle, &stream), "cublasGetStream");
  if (!st.ok()) return st;
  st = standard::cuda_status(standard_softmax(p, S, P, stream), "standard_softmax");
  if (!st.ok()) return st;

  // O^T (D x T_q, ld o_row) = V^T (D x T_k, ld v_row) * P^T (T_k x T_q, ld T_k).
  return standard::for_each_group_slice(p, [&](const GroupSlice& s) {
    Gemm g;
    g.ta = CUBLAS_OP_N, g.tb = CUBLAS_OP_N;
    g.m = p.D, g.n = p.T_q, g.k = p.T_k;
    g.a = standard::at16(p.v, s.b * p.v_batch_stride), g.at = io;
    g.lda = static_cast<int>(p.v_row_stride), g.sa = p.v_head_stride;
    g.b = standard::at16(P, s.q_head0 * s.tile), g.bt = io;
    g.ldb = p.T_k, g.sb = s.G * s.tile;
    g.c = standard::at16(p.o, s.b * p.o_batch_stride + s.g * p.o_head_stride), g.ct = io;
    g.ldc = static_cast<int>(p.o_row_stride), g.sc = s.G * p.o_head_stride;
    g.batch = p.H_kv;
    return standard::gemm_status(standard::run_gemm(handle, g), "O = P V");
  });
}

}  // namespace fa2b
