// SPDX-License-Identifier: Apache-2.0
// Host code only (nvcc compiles it with the host compiler): the standard backward's GEMMs and
// launches in order. See standard_gemm.h for the column-major conventions and the batching.
#include <cstdint>

#include "standard/standard_bwd.h"
#include "standard/standard_bwd_kernels.h"
#include "standard/standard_fwd.h"
#include "standard/standard_gemm.h"

namespace fa2b {
namespace {

constexpr std::size_t kAlign = 256;

std::size_t align_up(std::size_t x) {
  return (x + kAlign - 1) / kAlign * kAlign;
}

std::size_t score_elems(const AttnParams& p) {
  return static_cast<std::size_t>(p.B) * static_cast<std::size_t>(p.H) *
         static_cast<std::size_t>(p.T_q) * static_cast<std::size_t>(p.T_k);
}

std::size_t acc_bytes(const AttnParams& p) {  // one float32 [B, H_kv, T_k, D] accumulator
  if (p.H == p.H_kv) return 0;
  return align_up(static_cast<std::size_t>(p.B) * static_cast<std::size_t>(p.H_kv) *
                  static_cast<std::size_t>(p.T_k) * static_cast<std::size_t>(p.D) * 4);
}

// The workspace carved up in the order standard_bwd_workspace_bytes documents.
struct Workspace {
  float* dP;
  void* dS;
  float* acc_k;  // null when G == 1
  float* acc_v;
};

Workspace carve(const AttnParams& p, void* base) {
  char* at = static_cast<char*>(base);
  Workspace w{};
  w.dP = reinterpret_cast<float*>(at);
  at += align_up(score_elems(p) * 4);
  w.dS = at;
  at += align_up(score_elems(p) * 2);
  if (acc_bytes(p) > 0) {
    w.acc_k = reinterpret_cast<float*>(at);
    w.acc_v = reinterpret_cast<float*>(at + acc_bytes(p));
  }
  return w;
}

// Where dK or dV goes: straight into the output (G == 1) or added into the float32
// accumulator, first group position overwriting it.
void set_kv_output(const AttnParams& p, const standard::GroupSlice& s, float* acc, void* out,
                   std::int64_t out_batch_stride, std::int64_t out_head_stride,
                   std::int64_t out_row_stride, standard::Gemm& g) {
  if (acc == nullptr) {
    g.c = standard::at16(out, s.b * out_batch_stride), g.ct = standard::io_type(p);
    g.ldc = static_cast<int>(out_row_stride), g.sc = out_head_stride;
    g.beta = 0.0f;
  } else {
    const long long head = static_cast<long long>(p.T_k) * p.D;
    g.c = acc + static_cast<std::int64_t>(s.b) * p.H_kv * head, g.ct = CUDA_R_32F;
    g.ldc = p.D, g.sc = head;
    g.beta = s.g == 0 ? 0.0f : 1.0f;
  }
}

}  // namespace

bool standard_bwd_supported(const AttnBwdParams& p, std::string* why) {
  return standard_supported(p.fwd, why);
}

std::size_t standard_bwd_workspace_bytes(const AttnParams& p) {
  return align_up(score_elems(p) * 4) + align_up(score_elems(p) * 2) + 2 * acc_bytes(p);
}

StandardStatus standard_attention_bwd(const AttnBwdParams& p, const void* saved_P, void* workspace,
                                      cublasHandle_t handle) {
  using standard::Gemm;
  using standard::GroupSlice;
  const AttnParams& f = p.fwd;
  if (!standard_bwd_supported(p, nullptr) || saved_P == nullptr || workspace == nullptr ||
      f.o == nullptr || p.d_o == nullptr || p.d_q == nullptr || p.d_k == nullptr ||
      p.d_v == nullptr) {
    return standard::cuda_status(cudaErrorInvalidValue, "standard_attention_bwd arguments");
  }
  const cudaDataType_t io = standard::io_type(f);
  const Workspace w = carve(f, workspace);
  cudaStream_t stream = nullptr;
  StandardStatus st = standard::gemm_status(cublasGetStream(handle, &stream), "cublasGetStream");
  if (!st.ok()) return st;

  // 1. dP^T (T_k x T_q, ld T_k) = V (D x T_k)^T * dO^T (D x T_q); dO uses O's strides.
  st = standard::for_each_group_slice(f, [&](const GroupSlice& s) {
    Gemm g;
    g.ta = CUBLAS_OP_T, g.tb = CUBLAS_OP_N;
    g.m = f.T_k, g.n = f.T_q, g.k = f.D;
    g.a = standard::at16(f.v, s.b * f.v_batch_stride), g.at = io;
    g.lda = static_cast<int>(f.v_row_stride), g.sa = f.v_head_stride;
    g.b = standard::at16(p.d_o, s.b * f.o_batch_stride + s.g * f.o_head_stride), g.bt = io;
    g.ldb = static_cast<int>(f.o_row_stride), g.sb = s.G * f.o_head_stride;
    g.c = w.dP + s.q_head0 * s.tile, g.ct = CUDA_R_32F;
    g.ldc = f.T_k, g.sc = s.G * s.tile;
    g.batch = f.H_kv;
    return standard::gemm_status(standard::run_gemm(handle, g), "dP = dO V^T");
  });
  if (!st.ok()) return st;

  // 2. dS = P o (dP - D_i).
  st = standard::cuda_status(standard::launch_ds(p, saved_P, w.dP, w.dS, stream), "dS kernel");
  if (!st.ok()) return st;

  // 3. dQ^T (D x T_q, ld q_row) = K^T (D x T_k, ld k_row) * dS^T (T_k x T_q, ld T_k), * scale.
  st = standard::for_each_group_slice(f, [&](const GroupSlice& s) {
    Gemm g;
    g.ta = CUBLAS_OP_N, g.tb = CUBLAS_OP_N;
    g.m = f.D, g.n = f.T_q, g.k = f.T_k;
    g.a = standard::at16(f.k, s.b * f.k_batch_stride), g.at = io;
    g.lda = static_cast<int>(f.k_row_stride), g.sa = f.k_head_stride;
    g.b = standard::at16(w.dS, s.q_head0 * s.tile), g.bt = io;
    g.ldb = f.T_k, g.sb = s.G * s.tile;
    g.c = standard::at16(p.d_q, s.b * f.q_batch_stride + s.g * f.q_head_stride), g.ct = io;
    g.ldc = static_cast<int>(f.q_row_stride), g.sc = s.G * f.q_head_stride;
    g.batch = f.H_kv;
    g.alpha = f.scale;
    return standard::gemm_status(standard::run_gemm(handle, g), "dQ = scale dS K");
  });
  if (!st.ok()) return st;

  // 4. dK^T (D x T_k) = Q^T (D x T_q, ld q_row) * dS (T_q x T_k: the stored T_k x T_q, ld T_k,
  //    transposed), * scale.
  st = standard::for_each_group_slice(f, [&](const GroupSlice& s) {
    Gemm g;
    g.ta = CUBLAS_OP_N, g.tb = CUBLAS_OP_T;
    g.m = f.D, g.n = f.T_k, g.k = f.T_q;
    g.a = standard::at16(f.q, s.b * f.q_batch_stride + s.g * f.q_head_stride), g.at = io;
    g.lda = static_cast<int>(f.q_row_stride), g.sa = s.G * f.q_head_stride;
    g.b = standard::at16(w.dS, s.q_head0 * s.tile), g.bt = io;
    g.ldb = f.T_k, g.sb = s.G * s.tile;
    set_kv_output(f, s, w.acc_k, p.d_k, f.k_batch_stride, f.k_head_stride, f.k_row_stride, g);
    g.batch = f.H_kv;
    g.alpha = f.scale;
    return standard::gemm_status(standard::run_gemm(handle, g), "dK = scale dS^T Q");
  });
  if (!st.ok()) return st;

  // 5. dV^T (D x T_k) = dO^T (D x T_q, ld o_row) * P (T_q x T_k: stored T_k x T_q, transposed).
  st = standard::for_each_group_slice(f, [&](const GroupSlice& s) {
    Gemm g;
    g.ta = CUBLAS_OP_N, g.tb = CUBLAS_OP_T;
    g.m = f.D, g.n = f.T_k, g.k = f.T_q;
    g.a = standard::at16(p.d_o, s.b * f.o_batch_stride + s.g * f.o_head_stride), g.at = io;
    g.lda = static_cast<int>(f.o_row_stride), g.sa = s.G * f.o_head_stride;
    g.b = standard::at16(saved_P, s.q_head0 * s.tile), g.bt = io;
    g.ldb = f.T_k, g.sb = s.G * s.tile;
    set_kv_output(f, s, w.acc_v, p.d_v, f.v_batch_stride, f.v_head_stride, f.v_row_stride, g);
    g.batch = f.H_kv;
    return standard::gemm_status(standard::run_gemm(handle, g), "dV = P^T dO");
  });
  if (!st.ok() || w.acc_k == nullptr) return st;

  st = standard::cuda_status(standard::launch_round_kv(f, w.acc_k, p.d_k, f.k_batch_stride,
                                                       f.k_head_stride, f.k_row_stride, stream),
                             "dK rounding");
  if (!st.ok()) return st;
  return standard::cuda_status(standard::launch_round_kv(f, w.acc_v, p.d_v, f.v_batch_stride,
                                                         f.v_head_stride, f.v_row_stride, stream),
                               "dV rounding");
}

}  // namespace fa2b
