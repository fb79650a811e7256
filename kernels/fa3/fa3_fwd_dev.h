// SPDX-License-Identifier: Apache-2.0
// The fa3 forward's tuning variants (fa3_dev_tiles.h) as the fa3-dev backend runs them.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "common/attn_params.h"

namespace fa2b {

// Variants of head dim D in this build, counting variant 0 (the shipped dispatch): 0 when
// the build has no fa3 tuning variants (no -DFA2BENCH_DEV_KERNELS=ON or no sm_90a), or D has
// no list.
int fa3_fwd_dev_variant_count(int D);

// "128x176 s2 c2 turns" for variant v >= 1 of D; "shipped" for 0; "" when out of range.
std::string fa3_fwd_dev_variant_name(int D, int v);

// Variant v >= 1 of p.D; cudaErrorInvalidValue when it is not in this build.
cudaError_t fa3_fwd_dev_variant(const AttnParams& p, int v, cudaStream_t stream);

}  // namespace fa2b
