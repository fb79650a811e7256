// SPDX-License-Identifier: Apache-2.0
// Host entry points of the naive backend: support checks, workspace layout, and the three
// launches in order on one stream.
#include <cstdint>

#include "common/layout_support.h"
#include "naive/naive_attn.h"
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

std::size_t s_bytes(const AttnParams& p) {
  return align_up(score_elems(p) * sizeof(float));
}

template <typename T>
cudaError_t run_stages(const AttnParams& p, void* workspace, cudaStream_t stream) {
  float* S = static_cast<float*>(workspace);
  T* P = reinterpret_cast<T*>(static_cast<char*>(workspace) + naive_saved_p_offset(p));
  cudaError_t err = naive::launch_qk<T>(p, S, stream);
  if (err == cudaSuccess) err = naive::launch_softmax<T>(p, S, P, stream);
  if (err == cudaSuccess) err = naive::launch_pv<T>(p, P, 1.0f, stream);
  return err;
}

}  // namespace

std::size_t naive_saved_p_offset(const AttnParams& p) {
  return s_bytes(p);
}

std::size_t naive_workspace_bytes(const AttnParams& p) {
  // P is stored in a 16-bit dtype; fp32 is unsupported, so 2 bytes covers every valid case.
  return s_bytes(p) + align_up(score_elems(p) * 2);
}

bool naive_supported(const AttnParams& p, std::string* why) {
  if (p.dtype == KernelDType::fp32) {
    return support_fail(why, "fp32 is not supported by naive (use fp16 or bf16)");
  }
  if (p.dtype != KernelDType::fp16 && p.dtype != KernelDType::bf16) {
    return support_fail(why, "unknown dtype");
  }
  // Its GEMMs step over D in chunks of 32 and zero-fill past D, so any multiple of 8 (16-byte
  // rows) works; 256 bounds the head dims we test.
  if (p.D < 8 || p.D > 256 || p.D % 8 != 0) {
    return support_fail(why,
                        "naive supports head dims that are multiples of 8 from 8 to 256, not " +
                            std::to_string(p.D));
  }
  return layout_supported(p, "naive", why);
}

cudaError_t naive_attention(const AttnParams& p, void* workspace, cudaStream_t stream) {
  if (!naive_supported(p, nullptr) || workspace == nullptr) return cudaErrorInvalidValue;
  if (p.dtype == KernelDType::bf16) return run_stages<__nv_bfloat16>(p, workspace, stream);
  return run_stages<__half>(p, workspace, stream);
}

}  // namespace fa2b
