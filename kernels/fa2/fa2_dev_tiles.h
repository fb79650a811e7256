// SPDX-License-Identifier: Apache-2.0
// Tuning candidates of the FA2 forward kernel (FA2BENCH_DEV_KERNELS=ON only): tile shapes per
// head dim, each instantiated for fp16 and bf16 in its own unit under inst/dev/ (so the build
// compiles them in parallel), and the variant list that `fa2bench tune` times.
#pragma once

#include <cuda_runtime.h>

#include "common/attn_params.h"
#include "fa2/fa2_traits.h"

namespace fa2b {
namespace dev {

// Launches candidate tile `kTile` of head dim kD (see fa2_dev_tiles.cuh) with the given CTA
// order; explicitly instantiated under inst/dev/.
template <typename T, int kD, int kTile>
cudaError_t run_tile(const AttnParams& p, Fa2Order order, cudaStream_t stream);

}  // namespace dev
}  // namespace fa2b
