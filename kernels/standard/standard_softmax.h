// SPDX-License-Identifier: Apache-2.0
// The "standard" backend's one kernel: masked row softmax between its two cuBLAS GEMMs.
#pragma once

#include <cuda_runtime.h>

#include "common/attn_params.h"

namespace fa2b {

// S: float32 scores, already scaled, one row of T_k per (batch, head, query row) in that order
// (row r = (b*H + h)*T_q + i, leading dimension T_k). Writes P (the input dtype, same layout)
// with keys past the bottom-right causal diagonal set to 0, and p.lse (when non-null): the
// natural-log logsumexp of each row, -inf for a row that sees no key (whose P row is all 0).
cudaError_t standard_softmax(const AttnParams& p, const float* S, void* P, cudaStream_t stream);

}  // namespace fa2b
