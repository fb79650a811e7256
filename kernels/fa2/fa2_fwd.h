// SPDX-License-Identifier: Apache-2.0
// FlashAttention-2 forward on CUDA tensor cores (sm_80+). Host-callable entry point.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "common/attn_params.h"
#include "fa2/fa2_split_kv.h"

namespace fa2b {

// True when a compiled instantiation exists for (dtype, D); `why` says otherwise. A paged KV
// cache (attn_paged) needs the decode kernels' rules too: D one of their
// tile head dims (no padded ones), a dense batch, a power-of-two page size.
bool fa2_fwd_supported(const AttnParams& p, std::string* why);

// Launches the forward kernel on `stream`. Writes O and (when p.lse != nullptr) LSE.
// Returns the launch error (cudaGetLastError) so the caller can attribute it. A paged KV cache
// is cudaErrorInvalidValue here (the plain kernels read no pages): the plan's overload below
// runs it.
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

// Bytes of the workspace the forward of `plan` needs: as above, and one split's for a paged KV
// cache whose heads are not packed (fa2_plan_uses_workspace); 0 when it uses none.
std::int64_t fa2_fwd_split_workspace_bytes(const AttnParams& p, const Fa2SplitKv& plan);

// The forward as `split` plans it: split.n_splits slices of the key axis and / or packed KV
// groups (neither, for a contiguous cache: exactly fa2_fwd(p, stream), no workspace touched);
// where it uses the workspace the pointers must hold fa2_fwd_split_workspace_bytes(p, split)
// bytes between them. A paged KV cache (p.block_table) runs here whatever the plan: the decode
// kernels are the ones that read pages.
cudaError_t fa2_fwd(const AttnParams& p, const Fa2SplitKv& split, cudaStream_t stream);

}  // namespace fa2b
