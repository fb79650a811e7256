// SPDX-License-Identifier: Apache-2.0
// FlashAttention-2 backward on CUDA tensor cores (sm_80+). Host-callable entry points.
//
// Three launches on one stream: a preprocessing pass (D_i = rowsum(dO o O) per query row, and
// the fp32 dQ accumulator zeroed), the main kernel (one CTA per key block and KV head; it
// recomputes P from Q, K and the saved LSE, keeps dK and dV on chip across every query head
// of its group and every query block, and adds its share of dQ into the fp32 accumulator with
// atomics), and a pass converting the accumulator to dQ in the input dtype.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "common/attn_params.h"
#include "fa2/fa2_bwd_workspace.h"

namespace fa2b {

// True when a compiled instantiation exists for (dtype, D); `why` says otherwise (a paged KV
// cache among them: the backward reads none).
bool fa2_bwd_supported(const AttnParams& p, std::string* why);

// Bytes of device workspace fa2_bwd needs (fa2_bwd_workspace.h).
std::size_t fa2_bwd_workspace_bytes(const AttnParams& p);

// Runs the backward on `stream`; `workspace` holds fa2_bwd_workspace_bytes(p.fwd) bytes,
// 16-byte aligned. Reads p.fwd.{q,k,v,o,lse} and p.d_o; writes p.d_q, p.d_k, p.d_v.
// Returns the first launch error (cudaGetLastError).
cudaError_t fa2_bwd(const AttnBwdParams& p, void* workspace, cudaStream_t stream);

}  // namespace fa2b
