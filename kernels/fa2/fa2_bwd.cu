// SPDX-License-Identifier: Apache-2.0
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <string>

#include "common/head_dims.h"
#include "common/layout_support.h"
#include "common/static_switch.h"
#include "common/varlen.h"
#include "fa2/fa2_bwd.h"
#include "fa2/fa2_bwd_launch.h"
#include "fa2/fa2_fwd.h"
#include "fa2/fa2_padded_head_dims.h"

namespace fa2b {

bool fa2_bwd_supported(const AttnParams& p, std::string* why) {
  // Before the forward's rules, which accept a paged cache: the backward kernels address K and
  // V contiguously, and a paged cache is an inference layout (no training step reads one).
  if (attn_paged(p)) {
    return support_fail(why,
                        "paged KV layout: fa2's backward reads no paged cache (an inference "
                        "layout; its forward runs in the decode kernels)");
  }
  // Same dtypes, head dims and layout rules as the forward, whose LSE the backward reads.
  if (!fa2_fwd_supported(p, why)) return false;
  // Every head dim the forward takes: a listed one in its tile, the others (multiples of 8)
  // padded into the next listed tile, as the forward pads them; varlen batches at all of them.
  if (p.H_kv > 65535 || p.B > 65535) {
    return support_fail(why, "fa2 backward needs B and H_kv <= 65535 (grid y and z)");
  }
  const std::int64_t key_blocks = (static_cast<std::int64_t>(p.T_k) + 63) / 64;
  if (key_blocks > 0x7fffffffLL) return support_fail(why, "fa2 backward grid too large (T_k)");
  return true;
}

std::size_t fa2_bwd_workspace_bytes(const AttnParams& p) {
  return fa2_bwd_workspace_bytes(p.B, p.H, p.T_q, p.D);
}

cudaError_t fa2_bwd(const AttnBwdParams& p, void* workspace, cudaStream_t stream) {
  std::string why;
  if (!fa2_bwd_supported(p.fwd, &why)) return cudaErrorInvalidValue;
  if (!aligned16(p.d_o) || !aligned16(p.d_q) || !aligned16(p.d_k) || !aligned16(p.d_v) ||
      !aligned16(workspace) || p.fwd.lse == nullptr) {
    return cudaErrorInvalidValue;
  }
  float* dq_accum = static_cast<float*>(workspace);
  // The accumulator's rows are as wide as the tile that runs the head dim.
  const int tile_d = fa2_padded_head_dim(p.fwd.D);
  float* d_sum = dq_accum + static_cast<std::size_t>(p.fwd.B) * p.fwd.H * p.fwd.T_q * tile_d;
  return FA2B_FP16_SWITCH(p.fwd.dtype == KernelDType::bf16, T, [&] {
    return fa2_dispatch_head_dim(tile_d, [&](auto kD) {
      constexpr int d = decltype(kD)::value;
      return p.fwd.D == d ? run_fa2_bwd<T, d>(p, dq_accum, d_sum, stream)
                          : run_fa2_bwd_padded<T, d>(p, dq_accum, d_sum, stream);
    });
  });
}

}  // namespace fa2b
