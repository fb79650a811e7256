// SPDX-License-Identifier: Apache-2.0
// The per-(dtype, head dim) launchers of the fa3 forward, defined in inst/ (sm_90a only).
#pragma once

#include <cuda_runtime.h>

#include "common/attn_params.h"

namespace fa2b {

template <typename T, int kHeadDim>
cudaError_t run_fa3_fwd(const AttnParams& p, cudaStream_t stream);

}  // namespace fa2b
