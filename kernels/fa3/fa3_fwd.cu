// SPDX-License-Identifier: Apache-2.0
// Host side of the fa3 forward: the support rules and the (dtype, head dim) dispatch. The
// kernels themselves are in the sm_90a units under inst/, built only when the architecture
// list has 90 (FA2BENCH_HAVE_FA3).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <string>

#include "common/layout_support.h"
#include "common/static_switch.h"
#include "fa3/fa3_fwd.h"
#include "fa3/fa3_fwd_launch.h"
#include "fa3/fa3_traits.h"

namespace fa2b {

bool fa3_built() {
#if defined(FA2BENCH_HAVE_FA3)
  return true;
#else
  return false;
#endif
}

bool fa3_fwd_supported(const AttnParams& p, std::string* why) {
  if (!fa3_built()) {
    return support_fail(why,
                        "fa3 is not in this build (its sm_90a kernels need 90 in the CUDA "
                        "architecture list)");
  }
  if (p.dtype != KernelDType::fp16 && p.dtype != KernelDType::bf16) {
    return support_fail(why, "fa3 supports fp16 and bf16 only");
  }
  // The kernels mask causally and the T_k tail only (the backward takes these rules too).
  if (p.window_left >= 0 || p.window_right >= 0) {
    return support_fail(why, "fa3 has no sliding window (its kernels mask causally only)");
  }
  if (!fa3_head_dim_supported(p.D)) {
    return support_fail(
        why, "head dim " + std::to_string(p.D) +
                 " is not supported by fa3 (supported: " + head_dims_text(Fa3HeadDims{}) + ")");
  }
  // Variable-length batches: packed only, its token totals known on the host (the copy
  // engine's maps are sized by them).
  if (p.seqused != nullptr) {
    return support_fail(why,
                        "fa3 runs packed variable-length batches only (cu_seqlens); padded "
                        "ones (seqused) run on fa2");
  }
  if (p.cu_seqlens_q != nullptr && (p.cu_seqlens_k == nullptr || p.total_q < 1 || p.total_k < 1)) {
    return support_fail(why,
                        "fa3: a packed batch needs cu_seqlens_k and its token totals "
                        "(AttnParams::total_q, total_k)");
  }
  if (attn_paged(p)) return support_fail(why, "fa3 has no paged KV cache (fa2 reads pages)");
  // Also the copy engine's rules: 16-byte aligned bases, strides in whole 16-byte units.
  if (!layout_supported(p, "fa3", why)) return false;
  const std::int64_t ctas = static_cast<std::int64_t>(p.B) * p.H * ((p.T_q + 127) / 128);
  if (ctas > 0x7fffffffLL) return support_fail(why, "fa3 grid too large (B * H * T_q / 128)");
  return true;
}

cudaError_t fa3_fwd(const AttnParams& p, cudaStream_t stream) {
  std::string why;
  if (!fa3_fwd_supported(p, &why)) return cudaErrorInvalidValue;
#if defined(FA2BENCH_HAVE_FA3)
  return FA2B_FP16_SWITCH(p.dtype == KernelDType::bf16, T, [&] {
    return dispatch_head_dim(Fa3HeadDims{}, p.D, [&](auto kD) {
      return run_fa3_fwd<T, decltype(kD)::value>(p, stream);
    });
  });
#else
  (void)stream;
  return cudaErrorInvalidValue;
#endif
}

}  // namespace fa2b
