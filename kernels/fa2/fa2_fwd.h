// SPDX-License-Identifier: Apache-2.0
// FlashAttention-2 forward on CUDA tensor cores (sm_80+). Host-callable entry point.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "common/attn_params.h"

namespace fa2b {

// True when a compiled instantiation exists for (dtype, D); `why` says otherwise.
bool fa2_fwd_supported(const AttnParams& p, std::string* why);

// Launches the forward kernel on `stream`. Writes O and (when p.lse != nullptr) LSE.
// Returns the launch error (cudaGetLastError) so the caller can attribute it.
cudaError_t fa2_fwd(const AttnParams& p, cudaStream_t stream);

}  // namespace fa2b
