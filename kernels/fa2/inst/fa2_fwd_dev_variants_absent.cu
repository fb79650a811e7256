// SPDX-License-Identifier: Apache-2.0
// Weak stand-ins for the tuning hooks of fa2_fwd_launch.h, so that `fa2bench tune` links in a
// build without FA2BENCH_DEV_KERNELS and can say that the variants are missing. With the option
// on, fa2_fwd_dev_variants.cu defines the real (strong) ones. Both live in the same static
// library; the linker pulls the first archive member that defines an undefined symbol, and
// CMake's sorted glob puts fa2_fwd_dev_variants.cu before this file, so the strong definitions
// are the ones that get pulled in.
#include "fa2/fa2_fwd_launch.h"

namespace fa2b {

__attribute__((weak)) int fa2_fwd_dev_variant_count(int) {
  return 0;
}

__attribute__((weak)) const char* fa2_fwd_dev_variant_name(int, int) {
  return nullptr;
}

__attribute__((weak)) cudaError_t fa2_fwd_dev_variant(const AttnParams&, int, cudaStream_t) {
  return cudaErrorNotSupported;
}

}  // namespace fa2b
