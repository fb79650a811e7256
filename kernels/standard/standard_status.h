// SPDX-License-Identifier: Apache-2.0
// The outcome of a host call that mixes cuBLAS GEMMs and our kernels: the first failure, with
// the step that failed, so a caller can report either kind of error.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

namespace fa2b {

struct StandardStatus {
  cublasStatus_t cublas = CUBLAS_STATUS_SUCCESS;
  cudaError_t cuda = cudaSuccess;
  const char* step = nullptr;  // names the failing step; null on success
  bool ok() const { return cublas == CUBLAS_STATUS_SUCCESS && cuda == cudaSuccess; }
};

}  // namespace fa2b
