// SPDX-License-Identifier: Apache-2.0
// Hopper attention backward (sm_90a: wgmma). Host-callable entry points; the same three
// launches as fa2's backward (fa2_bwd.h), with the main kernel on warpgroup MMA.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "common/attn_params.h"

namespace fa2b {

// True when a compiled instantiation exists for the shape; `why` says otherwise.
bool fa3_bwd_supported(const AttnParams& p, std::string* why);

// Bytes of device workspace fa3_bwd needs: the fp32 dQ accumulator (B·H·T_q·D floats), then
// LSE·log2(e) and the row sums D_i in padded rows (2·B·H·fa3_bwd_stat_pitch(T_q) floats).
std::size_t fa3_bwd_workspace_bytes(const AttnParams& p);

// Runs the backward on `stream` (workspace: fa3_bwd_workspace_bytes, 16-byte aligned). Reads
// p.fwd.{q,k,v,o,lse} and p.d_o; writes p.d_q, p.d_k, p.d_v.
cudaError_t fa3_bwd(const AttnBwdParams& p, void* workspace, cudaStream_t stream);

}  // namespace fa2b
