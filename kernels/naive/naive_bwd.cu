// SPDX-License-Identifier: Apache-2.0
// Host entry points of the naive backward: support checks, workspace layout (dP then dS), and
// the five launches in order on one stream.
#include <cstdint>

#include "common/layout_support.h"
#include "naive/naive_attn.h"
#include "naive/naive_bwd.h"
#include "naive/naive_common.cuh"

namespace fa2b {
namespace {

constexpr std::size_t kAlign = 256;

std::size_t align_up(std::size_t x) {
  return (x + kAlign - 1) / kAlign * kAlign;
}

std::size_t score_elems(const AttnParams& p) {
  return static_cast<std::size_t>(p.B) * static_cast<std::size_t>(p.H) *
         static_cast<std::size_t>(p.T_q) * static_cast<std::size_t>(naive::padded_ld(p.T_k));
}

std::size_t dp_bytes(const AttnParams& p) {
  return align_up(score_elems(p) * sizeof(float));
}

template <typename T>
cudaError_t run_stages(const AttnBwdParams& p, const T* P, void* workspace, cudaStream_t stream) {
  const AttnParams& f = p.fwd;
  float* dP = static_cast<float*>(workspace);
  T* dS = reinterpret_cast<T*>(static_cast<char*>(workspace) + dp_bytes(f));

  // 1. dP = dO V^T: the forward's QK^T GEMM with dO in Q's place (O's strides) and V in K's.
  AttnParams dp = f;
  dp.q = p.d_o;
  dp.q_batch_stride = f.o_batch_stride, dp.q_head_stride = f.o_head_stride;
  dp.q_row_stride = f.o_row_stride;
  dp.k = f.v;
  dp.k_batch_stride = f.v_batch_stride, dp.k_head_stride = f.v_head_stride;
  dp.k_row_stride = f.v_row_stride;
  dp.scale = 1.0f;
  cudaError_t err = naive::launch_qk<T>(dp, dP, stream);

  // 2. dS = P o (dP - D_i).
  if (err == cudaSuccess) err = naive::launch_ds<T>(p, P, dP, dS, stream);

  // 3. dQ = scale * dS K: the forward's PV GEMM with K in V's place and dQ (Q's strides) in O's.
  if (err == cudaSuccess) {
    AttnParams dq = f;
    dq.v = f.k;
    dq.v_batch_stride = f.k_batch_stride, dq.v_head_stride = f.k_head_stride;
    dq.v_row_stride = f.k_row_stride;
    dq.o = p.d_q;
    dq.o_batch_stride = f.q_batch_stride, dq.o_head_stride = f.q_head_stride;
    dq.o_row_stride = f.q_row_stride;
    err = naive::launch_pv<T>(dq, dS, f.scale, stream);
  }

  // 4. dK = scale * dS^T Q.
  if (err == cudaSuccess) {
    naive::TnOperands dk;
    dk.b = f.q;
    dk.b_batch_stride = f.q_batch_stride, dk.b_head_stride = f.q_head_stride;
    dk.b_row_stride = f.q_row_stride;
    dk.c = p.d_k;
    dk.c_batch_stride = f.k_batch_stride, dk.c_head_stride = f.k_head_stride;
    dk.c_row_stride = f.k_row_stride;
    dk.alpha = f.scale;
    err = naive::launch_tn<T>(f, dS, dk, stream);
  }

  // 5. dV = P^T dO.
  if (err == cudaSuccess) {
    naive::TnOperands dv;
    dv.b = p.d_o;
    dv.b_batch_stride = f.o_batch_stride, dv.b_head_stride = f.o_head_stride;
    dv.b_row_stride = f.o_row_stride;
    dv.c = p.d_v;
    dv.c_batch_stride = f.v_batch_stride, dv.c_head_stride = f.v_head_stride;
    dv.c_row_stride = f.v_row_stride;
    dv.alpha = 1.0f;
    err = naive::launch_tn<T>(f, P, dv, stream);
  }
  return err;
}

}  // namespace

bool naive_bwd_supported(const AttnBwdParams& p, std::string* why) {
  if (!naive_supported(p.fwd, why)) return false;
  if (!aligned16(p.d_o) || !aligned16(p.d_q) || !aligned16(p.d_k) || !aligned16(p.d_v)) {
    return support_fail(why, "naive backward needs 16-byte aligned dO, dQ, dK, dV pointers");
  }
  return true;
}

std::size_t naive_bwd_workspace_bytes(const AttnParams& p) {
  // dS is stored in a 16-bit dtype; fp32 is unsupported, so 2 bytes covers every valid case.
  return dp_bytes(p) + align_up(score_elems(p) * 2);
}

cudaError_t naive_attention_bwd(const AttnBwdParams& p, const void* saved_P, void* workspace,
                                cudaStream_t stream) {
  if (!naive_bwd_supported(p, nullptr) || saved_P == nullptr || workspace == nullptr ||
      p.fwd.o == nullptr || p.d_o == nullptr || p.d_q == nullptr || p.d_k == nullptr ||
      p.d_v == nullptr) {
    return cudaErrorInvalidValue;
  }
  if (p.fwd.dtype == KernelDType::bf16) {
    return run_stages<__nv_bfloat16>(p, static_cast<const __nv_bfloat16*>(saved_P), workspace,
                                     stream);
  }
  return run_stages<__half>(p, static_cast<const __half*>(saved_P), workspace, stream);
}

}  // namespace fa2b
