// Declaration of the per-(dtype, head dim) launchers. Each is explicitly instantiated in its own
// translation unit under inst/ so that the kernels compile in parallel.
#pragma once

#include <cuda_runtime.h>

#include "common/attn_params.h"

namespace fa2b {

template <typename T, int kHeadDim>
cudaError_t run_fa2_fwd(const AttnParams& p, cudaStream_t stream);

}  // namespace fa2b

namespace fa2b {

// Development hook for tuning: runs bf16 with an alternative tile shape. Variant 0 is the
// shipped shape; the others are listed in inst/fa2_fwd_dev_variants.cu. Returns
// cudaErrorInvalidValue for an unknown (variant, D).
cudaError_t fa2_fwd_dev_variant(const AttnParams& p, int variant, cudaStream_t stream);

}  // namespace fa2b
