// SPDX-License-Identifier: Apache-2.0
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

// Where the forward leaves P for the backward (naive_attention_bwd in naive/naive_bwd.h): P
// starts naive_saved_p_offset(p) bytes into the forward's workspace (just past S, 256-byte
// aligned), laid out [B, H, T_q, ld] in the input dtype with ld = T_k rounded up to 8. Row r =
// (b*H + h)*T_q + i holds the normalised probabilities of query row i over the columns of its
// 128-row tile's causal extent rounded up to 8 (all ld columns without a mask), zeros past
// the row's own mask; columns past that extent are never written. The S half of the workspace
// is dead once the forward returns; only P must be kept until the backward has run.
std::size_t naive_saved_p_offset(const AttnParams& p);

bool naive_supported(const AttnParams& p, std::string* why);

// Runs the three stages on `stream` using `workspace` (naive_workspace_bytes(p) bytes).
// Writes O and LSE (when non-null). Returns the first launch error.
cudaError_t naive_attention(const AttnParams& p, void* workspace, cudaStream_t stream);

}  // namespace fa2b
