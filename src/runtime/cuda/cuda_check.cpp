// SPDX-License-Identifier: Apache-2.0
#include "runtime/cuda/cuda_check.h"

#include <fmt/format.h>

namespace fa2b {

CudaError::CudaError(cudaError_t code, const char* call, const char* file, int line)
    : std::runtime_error(fmt::format("{} failed at {}:{}: {} ({})", call, file, line,
                                     cudaGetErrorString(code), cudaGetErrorName(code))),
      code_(code) {}

bool is_sticky(cudaError_t code) {
  switch (code) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorMisalignedAddress:
    case cudaErrorIllegalInstruction:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
      return true;
    default:
      return false;
  }
}

}  // namespace fa2b
