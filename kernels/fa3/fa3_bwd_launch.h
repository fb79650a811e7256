// SPDX-License-Identifier: Apache-2.0
// The per-(dtype, head dim) launchers of the fa3 backward, defined in inst/ (sm_90a only).
#pragma once

#include <cuda_runtime.h>

#include "common/attn_params.h"

namespace fa2b {

// `stats`: the workspace past the dQ accumulator (fa3_bwd.h).
template <typename T, int kHeadDim>
cudaError_t run_fa3_bwd(const AttnBwdParams& p, float* dq_accum, float* stats, cudaStream_t stream);

}  // namespace fa2b
