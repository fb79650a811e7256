// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "backends/cuda/cuda_backends.h"

namespace fa2b {

KernelDType kernel_dtype(DType d) {
  switch (d) {
    case DType::fp16:
      return KernelDType::fp16;
    case DType::bf16:
      return KernelDType::bf16;
    case DType::fp32:
      return KernelDType::fp32;
  }
  return KernelDType::fp16;
}

Support our_kernel_support(const Case& c, const TargetInfo& t, std::string_view backend) {
  if (!t.cuda) return Support::no(fmt::format("{} needs the cuda target", backend));
  if (t.cc_major < 8) {
    return Support::no(
        fmt::format("needs compute capability 8.0 or newer (Ampere, sm_80); this device is {}.{}",
                    t.cc_major, t.cc_minor));
  }
  if (c.dtype == DType::fp32) {
    return Support::no(fmt::format("fp32 is not supported by {} (use fp16 or bf16)", backend));
  }
  if (c.H % c.H_kv != 0) return Support::no("H must be a multiple of H_kv");
  // Kernels index rows, heads and batches with 32-bit ints (offsets are 64-bit).
  constexpr std::int64_t kIntMax = 2147483647;
  if (c.B > kIntMax || c.H > kIntMax || c.T_q > kIntMax || c.T_k > kIntMax ||
      c.B * c.H * c.T_q > kIntMax) {
    return Support::no("B*H*T_q exceeds 2^31-1; our kernels index rows with 32-bit integers");
  }
  return Support::yes();
}

Support our_kernel_support(const Case& c, const TargetInfo& t, std::string_view backend,
                           bool (*kernel_supported)(const AttnParams&, std::string*)) {
  Support s = our_kernel_support(c, t, backend);
  if (!s.ok) return s;
  std::string why;
  if (!kernel_supported(shape_params(c), &why)) return Support::no(why);
  return Support::yes();
}

}  // namespace fa2b
