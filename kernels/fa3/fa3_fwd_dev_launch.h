// SPDX-License-Identifier: Apache-2.0
// The per-(dtype, head dim) launchers of the fa3 tuning variants, defined in inst/dev/.
#pragma once

#include <cuda_runtime.h>

#include "common/attn_params.h"

namespace fa2b {

// Variant v >= 1 (element v - 1 of Fa3DevTiles<kHeadDim>::List) with p's mask.
template <typename T, int kHeadDim>
cudaError_t run_fa3_fwd_dev(const AttnParams& p, int v, cudaStream_t stream);

}  // namespace fa2b
