// SPDX-License-Identifier: Apache-2.0
// Definition of run_fa3_fwd_dev<T, D>; included only by the sm_90a tuning units (inst/dev/).
#pragma once

#include <cuda_runtime.h>

#include "fa3/fa3_dev_tiles.h"
#include "fa3/fa3_fwd_dev_launch.h"
#include "fa3/fa3_fwd_launch.cuh"

namespace fa2b {

template <typename T, typename... Tiles>
cudaError_t launch_fa3_dev_tile(const AttnParams& p, int index, Fa3TileList<Tiles...>,
                                cudaStream_t stream) {
  cudaError_t err = cudaErrorInvalidValue;
  int i = 0;
  // The tile at `index` of the list, launched with p's mask.
  ((i++ == index ? (err = p.causal ? launch_fa3_fwd<Tiles, T, true>(p, stream)
                                   : launch_fa3_fwd<Tiles, T, false>(p, stream),
                    true)
                 : false) ||
   ...);
  return err;
}

template <typename T, int kHeadDim>
cudaError_t run_fa3_fwd_dev(const AttnParams& p, int v, cudaStream_t stream) {
  return launch_fa3_dev_tile<T>(p, v - 1, typename Fa3DevTiles<kHeadDim>::List{}, stream);
}

}  // namespace fa2b
