// Standard (materialising) attention on CUDA: S = scale*QK^T in float32 device memory,
// masked row softmax producing P (in the input dtype), then O = PV. Host entry points.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "common/attn_params.h"

namespace fa2b {

// Bytes of device workspace the naive kernels need for `p`: S (float32, B*H*T_q*ld) plus
// P (input dtype, B*H*T_q*ld), each 256-byte aligned, where ld is T_k rounded up to a multiple
// of 8 so every S/P row starts 16-byte aligned.
std::size_t naive_workspace_bytes(const AttnParams& p);

bool naive_supported(const AttnParams& p, std::string* why);

// Runs the three stages on `stream` using `workspace` (naive_workspace_bytes(p) bytes).
// Writes O and LSE (when non-null). Returns the first launch error.
cudaError_t naive_attention(const AttnParams& p, void* workspace, cudaStream_t stream);

}  // namespace fa2b
