// SPDX-License-Identifier: Apache-2.0
// Declaration of the per-(dtype, head dim) launchers. Each is explicitly instantiated in its own
// translation unit under inst/ so that the kernels compile in parallel.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "common/attn_params.h"
#include "fa2/fa2_split_kv.h"
#include "fa2/fa2_traits.h"

namespace fa2b {

template <typename T, int kHeadDim>
cudaError_t run_fa2_fwd(const AttnParams& p, cudaStream_t stream);

// The forward of a head dim p.D < kHeadDim padded into kHeadDim's small-grid tile
// (fa2_padded_head_dim); cudaErrorInvalidConfiguration where that tile does not fit the device.
template <typename T, int kHeadDim>
cudaError_t run_fa2_fwd_padded(const AttnParams& p, cudaStream_t stream);

// The decode forward (fa2_split_kv.h: split.n_splits > 1 and / or split.pack_gqa): the split
// and / or packed kernel on the small-grid tile, then the combine when split. Refuses
// (cudaErrorInvalidConfiguration) when that tile does not fit the device's shared memory, or a
// packed group's rows do not fit it; fa2_fwd_decode_plan() plans neither.
template <typename T, int kHeadDim>
cudaError_t run_fa2_fwd_decode(const AttnParams& p, const Fa2SplitKv& split, cudaStream_t stream);

// Merges the splits' rows into O and LSE (fa2_fwd_combine.cuh), for either dtype.
cudaError_t fa2_fwd_combine(const AttnParams& p, const Fa2SplitKv& split, cudaStream_t stream);

// The grid class that picks the tile table (fa2_traits.h): true when the grid has few 128-row
// query tiles, B * H * ceil(T_q / 128) < 4 * (SMs of the current device). The environment
// variable FA2BENCH_FA2_GRID_CLASS=small|large forces one class (tests of both tile tables).
bool fa2_small_grid(const AttnParams& p);

// Opt-in dynamic shared memory per block of the current device
// (cudaDevAttrMaxSharedMemoryPerBlockOptin, looked up once per device), lowered to
// FA2BENCH_FA2_SMEM_LIMIT bytes when that is set and smaller (tests of the tile fallback on a
// large-memory GPU). The launchers pick tiles within it (fa2_tile_choice.h).
std::int64_t fa2_smem_limit();

// fa2_smem_limit()'s environment override applied to a device's limit (supports() checks).
std::int64_t fa2_smem_limit_for(std::int64_t device_limit);

// The CTA order of a causal launch: `by_shape` (the rule of fa2_fwd_launch.cuh) unless the
// environment variable FA2BENCH_FA2_CAUSAL_ORDER=head|heavy forces one (tests of both orders:
// at D=128 the rule picks head-major only for K/V beyond 256 MiB, which no test shape reaches).
Fa2Order fa2_causal_order(Fa2Order by_shape);

}  // namespace fa2b

namespace fa2b {

// Development hooks for tuning (`fa2bench tune`), compiled only with -DFA2BENCH_DEV_KERNELS=ON
// (inst/*_dev_variants.cu); without them the count is 0, the name null and the run
// cudaErrorNotSupported (inst/fa2_fwd_dev_variants_absent.cu). Variant 0 is the shipped
// dispatch (fa2_fwd); variants 1..count-1 are fixed tile shapes and CTA orders for head dim D,
// in fp16 and bf16, causal or not. An unknown (variant, D) returns cudaErrorInvalidValue.
int fa2_fwd_dev_variant_count(int D);
const char* fa2_fwd_dev_variant_name(int D, int variant);
cudaError_t fa2_fwd_dev_variant(const AttnParams& p, int variant, cudaStream_t stream);

}  // namespace fa2b
