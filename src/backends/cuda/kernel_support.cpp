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

AttnParams shape_params(const Case& c) {
  AttnParams p;
  const Strides q = tensor_strides(c.layout, c.H, c.T_q, c.D);
  const Strides kv = tensor_strides(c.layout, c.H_kv, c.T_k, c.D);
  p.q_batch_stride = p.o_batch_stride = q.b;
  p.q_head_stride = p.o_head_stride = q.h;
  p.q_row_stride = p.o_row_stride = q.t;
  p.k_batch_stride = p.v_batch_stride = kv.b;
  p.k_head_stride = p.v_head_stride = kv.h;
  p.k_row_stride = p.v_row_stride = kv.t;
  p.B = static_cast<int>(c.B);
  p.H = static_cast<int>(c.H);
  p.H_kv = static_cast<int>(c.H_kv);
  p.T_q = static_cast<int>(c.T_q);
  p.T_k = static_cast<int>(c.T_k);
  p.D = static_cast<int>(c.D);
  p.causal = c.causal;
  p.dtype = kernel_dtype(c.dtype);
  return p;
}

Support our_kernel_support(const Case& c, const TargetInfo& t, std::string_view backend) {
  if (!t.cuda) return Support::no(fmt::format("{} needs the cuda target", backend));
  if (t.cc_major < 8) return Support::no("needs compute capability 8.0 or newer");
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

}  // namespace fa2b
