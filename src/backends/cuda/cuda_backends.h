// SPDX-License-Identifier: Apache-2.0
// Factories for the backends that run our own CUDA kernels.
#pragma once

#include <memory>

#include "backends/backend.h"
#include "backends/shape_params.h"

namespace fa2b {

std::unique_ptr<Backend> make_naive_cuda_backend();
std::unique_ptr<Backend> make_fa2_cuda_backend();
// The fa2 forward with the case's tile/pipeline variant (`fa2bench tune`).
std::unique_ptr<Backend> make_fa2_dev_cuda_backend();
// Our Hopper kernel (wgmma, sm_90a), forward and backward.
std::unique_ptr<Backend> make_fa3_cuda_backend();
// The fa3 forward with the case's tile/pipeline variant (`fa2bench tune --backend fa3`).
std::unique_ptr<Backend> make_fa3_dev_cuda_backend();
// Peers: cuDNN's fused attention (loaded at run time) and cuBLAS + softmax ("standard").
std::unique_ptr<Backend> make_cudnn_backend();
std::unique_ptr<Backend> make_standard_cuda_backend();

// Shared gate for our kernels: compute capability 8.0+ and fp16/bf16 only.
Support our_kernel_support(const Case& c, const TargetInfo& t, std::string_view backend);
// The shared gate, then the kernel's own answer for the case's shape (`kernel_supported` is
// e.g. fa2_fwd_supported).
Support our_kernel_support(const Case& c, const TargetInfo& t, std::string_view backend,
                           bool (*kernel_supported)(const AttnParams&, std::string*));
KernelDType kernel_dtype(DType d);
// fa3's device rule (its sm_90a code runs on compute capability 9.0 only), for fa3 and fa3-dev.
Support fa3_device_rule(const TargetInfo& t);

}  // namespace fa2b
