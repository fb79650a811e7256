// SPDX-License-Identifier: Apache-2.0
// Hopper-native attention forward (sm_90a: wgmma). Host-callable entry points.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "common/attn_params.h"

namespace fa2b {

// True when this build contains the sm_90a kernels (the architecture list had 90).
bool fa3_built();

// True when a compiled instantiation exists for the shape (dtype, D, layout) and this build has
// the kernels; `why` says otherwise. The device check (sm_90 only) is the backend's.
bool fa3_fwd_supported(const AttnParams& p, std::string* why);

// Launches the forward on `stream`: writes O and (when p.lse != nullptr) LSE, as fa2_fwd.
cudaError_t fa3_fwd(const AttnParams& p, cudaStream_t stream);

}  // namespace fa2b
