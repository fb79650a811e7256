// SPDX-License-Identifier: Apache-2.0
// Definition of run_fa3_fwd_dev<T, D>; included only by the sm_90a tuning units (inst/dev/).
#pragma once

#include <cuda_runtime.h>

#include "fa3/fa3_dev_tiles.h"
#include "fa3/fa3_fwd_dev_launch.h"
#include "fa3/fa3_fwd_launch.cuh"

namespace fa2b {

template <typename T, int kHeadDim>
cudaError_t run_fa3_fwd_dev(const AttnParams& p, int v, cudaStream_t stream) {
  cudaError_t err = cudaErrorInvalidValue;
  with_fa3_tile_at(v - 1, typename Fa3DevTiles<kHeadDim>::List{}, [&](auto tile) {
    using Tile = decltype(tile);
    err = p.causal ? launch_fa3_fwd<Tile, T, true>(p, stream)
                   : launch_fa3_fwd<Tile, T, false>(p, stream);
  });
  return err;
}

}  // namespace fa2b
