// SPDX-License-Identifier: Apache-2.0
// Runs a RefJob (verify/device_reference.h) on the current device, on `stream`: uploads the
// row descriptors, launches the float64 reference kernels (device_reference.cu), copies the
// results back into `out` and synchronizes. Scratch memory is the harness's own (cudaMalloc,
// outside every case's tracked peak) and freed before returning.
#pragma once

#include <cuda_runtime.h>

#include "verify/device_reference.h"

namespace fa2b {

cudaError_t run_device_reference(const RefJob& job, RefJobOut& out, cudaStream_t stream);

}  // namespace fa2b
