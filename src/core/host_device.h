// SPDX-License-Identifier: Apache-2.0
#pragma once
// Lets small numeric helpers compile for both host (g++) and device (nvcc).
#if defined(__CUDACC__)
#define FA2B_HD __host__ __device__ __forceinline__
#else
#define FA2B_HD inline
#endif
