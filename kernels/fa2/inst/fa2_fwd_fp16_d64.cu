// Instantiation unit: fp16, head dim 64, causal and non-causal. One file per (dtype, D) so
// the build compiles the kernels in parallel.
#include "fa2/fa2_fwd_launch.cuh"

namespace fa2b {
template cudaError_t run_fa2_fwd<__half, 64>(const AttnParams&, cudaStream_t);
}  // namespace fa2b
