// Instantiation unit: bf16, head dim 224, causal and non-causal. One file per (dtype, D) so
// the build compiles the kernels in parallel.
#include "fa2/fa2_fwd_launch.cuh"

namespace fa2b {
template cudaError_t run_fa2_fwd<__nv_bfloat16, 224>(const AttnParams&, cudaStream_t);
}  // namespace fa2b
