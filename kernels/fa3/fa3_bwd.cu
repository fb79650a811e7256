// SPDX-License-Identifier: Apache-2.0
// Host side of the fa3 backward: support rules and the (dtype, head dim) dispatch; the kernels
// are in the sm_90a units under inst/ (FA2BENCH_HAVE_FA3).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <string>

#include "common/layout_support.h"
#include "common/static_switch.h"
#include "fa3/fa3_bwd.h"
#include "fa3/fa3_bwd_launch.h"
#include "fa3/fa3_bwd_traits.h"
#include "fa3/fa3_fwd.h"

namespace fa2b {

bool fa3_bwd_supported(const AttnParams& p, std::string* why) {
#if !defined(FA2BENCH_HAVE_FA3)
  // Decided here too, not only by fa3_built(), so this file cannot disagree with the build.
  return support_fail(why, "fa3 is not in this build (no sm_90a kernels)");
#endif
  // The forward's rules (dtype, layout, the build) hold too: the backward reads its LSE.
  if (!fa3_fwd_supported(p, why)) return false;
  if (!fa3_bwd_head_dim_supported(p.D)) {
    return support_fail(why, "head dim " + std::to_string(p.D) +
                                 " is not supported by the fa3 backward (supported: " +
                                 head_dims_text(Fa3BwdHeadDims{}) + ")");
  }
  if (p.cu_seqlens_q != nullptr) {
    return support_fail(why, "fa3 has no variable-length backward (dense batches only)");
  }
  if (p.H_kv > 65535 || p.B > 65535) {
    return support_fail(why, "fa3 backward needs B and H_kv <= 65535 (grid y and z)");
  }
  return true;
}

std::size_t fa3_bwd_workspace_bytes(const AttnParams& p) {
  const std::size_t heads = static_cast<std::size_t>(p.B) * static_cast<std::size_t>(p.H);
  return 4ull * heads *
         (static_cast<std::size_t>(p.T_q) * static_cast<std::size_t>(p.D) +
          2ull * static_cast<std::size_t>(fa3_bwd_stat_pitch(p.T_q)));
}

cudaError_t fa3_bwd(const AttnBwdParams& p, void* workspace, cudaStream_t stream) {
  std::string why;
  if (!fa3_bwd_supported(p.fwd, &why)) return cudaErrorInvalidValue;
  if (!aligned16(p.d_o) || !aligned16(p.d_q) || !aligned16(p.d_k) || !aligned16(p.d_v) ||
      !aligned16(workspace) || p.fwd.lse == nullptr) {
    return cudaErrorInvalidValue;
  }
#if defined(FA2BENCH_HAVE_FA3)
  float* dq_accum = static_cast<float*>(workspace);
  float* stats = dq_accum + static_cast<std::size_t>(p.fwd.B) * p.fwd.H * p.fwd.T_q * p.fwd.D;
  return FA2B_FP16_SWITCH(p.fwd.dtype == KernelDType::bf16, T, [&] {
    return dispatch_head_dim(Fa3BwdHeadDims{}, p.fwd.D, [&](auto kD) {
      return run_fa3_bwd<T, decltype(kD)::value>(p, dq_accum, stats, stream);
    });
  });
#else
  (void)stream;
  return cudaErrorInvalidValue;
#endif
}

}  // namespace fa2b
