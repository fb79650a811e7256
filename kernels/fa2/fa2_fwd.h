// SPDX-License-Identifier: Apache-2.0
// FlashAttention-2 forward on CUDA tensor cores (sm_80+). Host-callable entry point.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "common/attn_params.h"
#include "fa2/fa2_split_kv.h"

namespace fa2b {

// True when a compiled instantiation exists for (dtype, D); `why` says otherwise.
bool fa2_fwd_supported(const AttnParams& p, std::string* why);

// Launches the forward kernel on `stream`. Writes O and (when p.lse != nullptr) LSE.
// Returns the launch error (cudaGetLastError) so the caller can attribute it.
cudaError_t fa2_fwd(const AttnParams& p, cudaStream_t stream);

// The decode plan of `p` on the current device (fa2_split_kv.h, fa2_split_choice.h): the split
// count (1: no split) and whether the KV groups are packed, with null workspace pointers (the
// caller allocates fa2_fwd_split_workspace_bytes and sets them). The device's multiprocessors
// are looked up once per device; environment variables, read at every call (it is made when a
// case is prepared, outside the timed region, and tests change them between calls), override:
// FA2BENCH_FA2_NUM_SMS=N the multiprocessors the heuristic assumes, FA2BENCH_FA2_SPLITS=N the
// count itself (any shape; capped at 128), FA2BENCH_FA2_GQA_PACK=0 turns packing off.
Fa2SplitKv fa2_fwd_decode_plan(const AttnParams& p);

// Bytes of the workspace a forward of `n_splits` splits needs (0 for one split).
std::int64_t fa2_fwd_split_workspace_bytes(const AttnParams& p, int n_splits);

// The forward as `split` plans it: split.n_splits slices of the key axis and / or packed KV
// groups (neither: exactly fa2_fwd(p, stream), no workspace touched); with splits the workspace
// pointers must hold fa2_fwd_split_workspace_bytes(p, split.n_splits) bytes between them.
cudaError_t fa2_fwd(const AttnParams& p, const Fa2SplitKv& split, cudaStream_t stream);

}  // namespace fa2b
