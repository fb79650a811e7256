// SPDX-License-Identifier: Apache-2.0
// The three launches of a flash-style backward on one stream (fa2's and fa3's): the
// preprocessing pass (D_i = rowsum(dO o O), the fp32 dQ accumulator zeroed), the family's main
// kernel, and the pass converting the accumulator to dQ.
#pragma once

#include <cuda_runtime.h>

#include "fa2/fa2_bwd_kernel.cuh"

namespace fa2b {

// `launch_main()` launches the main kernel and returns its launch error.
template <typename T, int kHeadDim, typename LaunchMain>
cudaError_t run_bwd_passes(const AttnBwdParams& p, float* dq_accum, float* d_sum,
                           cudaStream_t stream, LaunchMain&& launch_main) {
  const long long rows = static_cast<long long>(p.fwd.B) * p.fwd.H * p.fwd.T_q;
  fa2::fa2_bwd_preprocess<T, kHeadDim>
      <<<static_cast<unsigned>((rows + 7) / 8), 256, 0, stream>>>(p, dq_accum, d_sum);
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return err;
  err = launch_main();
  if (err != cudaSuccess) return err;
  const long long chunks = rows * dq_row_chunks<kHeadDim>(p);
  bwd_convert_dq<T, kHeadDim>
      <<<static_cast<unsigned>((chunks + 255) / 256), 256, 0, stream>>>(p, dq_accum);
  return cudaGetLastError();
}

}  // namespace fa2b
