// SPDX-License-Identifier: Apache-2.0
// Every CUDA runtime call is checked; the error names the call, file:line and CUDA's string.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace fa2b {

class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const char* call, const char* file, int line);
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

// True for errors after which the context is unusable (illegal address, launch failure, ...).
bool is_sticky(cudaError_t code);

}  // namespace fa2b

#define FA2B_CUDA_CHECK(call)                                        \
  do {                                                               \
    const cudaError_t fa2b_err_ = (call);                            \
    if (fa2b_err_ != cudaSuccess) {                                  \
      throw ::fa2b::CudaError(fa2b_err_, #call, __FILE__, __LINE__); \
    }                                                                \
  } while (0)
