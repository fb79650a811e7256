// SPDX-License-Identifier: Apache-2.0
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/device_props.h"
#include "common/env_knobs.h"
#include "common/head_dims.h"
#include "common/layout_support.h"
#include "common/static_switch.h"
#include "common/varlen.h"
#include "fa2/fa2_fwd.h"
#include "fa2/fa2_fwd_launch.h"
#include "fa2/fa2_grid_class.h"
#include "fa2/fa2_padded_head_dims.h"
#include "fa2/fa2_split_choice.h"
#include "fa2/fa2_tile_choice.h"
#include "fa2/fa2_traits.h"

namespace fa2b {
namespace {

// A test override from the environment: 1 when `name` is `first`, 2 when it is `second`, 0 when
// unset or anything else (the choice by shape). The callers cache it for the process.
int env_choice(const char* name, const char* first, const char* second) {
  const char* env = knob::value(name);
  if (env == nullptr) return 0;
  if (std::strcmp(env, first) == 0) return 1;
  if (std::strcmp(env, second) == 0) return 2;
  return 0;
}

// Opt-in shared memory per block of the current device, looked up once per device; 0 when the
// query fails (then no tile is launched).
std::int64_t device_smem_optin() {
  constexpr int kMaxDevices = 64;
  static std::atomic<std::int64_t> cached[kMaxDevices];  // zero-initialised (static storage)
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= kMaxDevices) {
    (void)cudaGetLastError();
    return 0;
  }
  std::int64_t bytes = cached[dev].load(std::memory_order_relaxed);
  if (bytes == 0) {
    int n = 0;
    if (cudaDeviceGetAttribute(&n, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess ||
        n < 1) {
      (void)cudaGetLastError();
      return 0;
    }
    bytes = n;
    cached[dev].store(bytes, std::memory_order_relaxed);
  }
  return bytes;
}

// FA2BENCH_FA2_SMEM_LIMIT in bytes; 0 when unset or not a positive number.
std::int64_t forced_smem_limit() {
  static const std::int64_t forced = [] {
    const char* env = knob::value(knob::kFa2SmemLimit);
    if (env == nullptr) return std::int64_t{0};
    char* end = nullptr;
    const long long v = std::strtoll(env, &end, 10);
    return end != env && *end == '\0' && v > 0 ? static_cast<std::int64_t>(v) : std::int64_t{0};
  }();
  return forced;
}

int forced_grid_class() {
  static const int forced = env_choice(knob::kFa2GridClass, "small", "large");
  return forced;
}

int forced_causal_order() {
  static const int forced = env_choice(knob::kFa2CausalOrder, "head", "heavy");
  return forced;
}

}  // namespace

Fa2Order fa2_causal_order(Fa2Order by_shape) {
  switch (forced_causal_order()) {
    case 1:
      return Fa2Order::kHeadMajor;
    case 2:
      return Fa2Order::kHeavyFirst;
    default:
      return by_shape;
  }
}

std::int64_t fa2_smem_limit_for(std::int64_t device_limit) {
  const std::int64_t forced = forced_smem_limit();
  return forced > 0 && (device_limit <= 0 || forced < device_limit) ? forced : device_limit;
}

std::int64_t fa2_smem_limit() {
  return fa2_smem_limit_for(device_smem_optin());
}

bool fa2_small_grid(const AttnParams& p) {
  const int forced = forced_grid_class();
  if (forced != 0) return forced == 1;
  return fa2_small_grid_for(p.B, p.H, p.T_q, device_sm_count());
}

bool fa2_fwd_supported(const AttnParams& p, std::string* why) {
  if (p.dtype == KernelDType::fp32) {
    return support_fail(why, "fp32 is not supported by fa2 (use fp16 or bf16)");
  }
  if (p.dtype != KernelDType::fp16 && p.dtype != KernelDType::bf16) {
    return support_fail(why, "unknown dtype for fa2 (use fp16 or bf16)");
  }
  if (!fa2_fwd_head_dim_supported(p.D)) {
    return support_fail(why, "head dim " + std::to_string(p.D) +
                                 " is not supported by fa2 (supported: every multiple of 8 up to " +
                                 std::to_string(kFa2MaxHeadDim) + "; tiles for " +
                                 fa2_head_dims_text() + ", the others run padded into the next)");
  }
  if (!layout_supported(p, "fa2", why)) return false;
  if (attn_paged(p)) {
    // Only the decode kernels read pages (fa2_fwd_kernel.cuh), and they take dense batches and
    // the tile head dims only (no padded ones).
    if (!fa2_head_dim_supported(p.D)) {
      return support_fail(why,
                          "paged KV layout: fa2 reads pages in its decode kernels, which "
                          "have tiles for head dims " +
                              fa2_head_dims_text() + " only (D=" + std::to_string(p.D) +
                              " runs padded in the plain forward, which reads no pages)");
    }
    if (attn_varlen(p)) {
      return support_fail(why, "paged KV layout: fa2 reads pages of dense batches only");
    }
    // The page and the row inside it come from a shift and a mask (load_paged_rows).
    if (p.page_size <= 0 || (p.page_size & (p.page_size - 1)) != 0) {
      return support_fail(why, "paged KV layout: fa2 needs a power-of-two page size (page_size " +
                                   std::to_string(p.page_size) + ")");
    }
    if (p.pages_per_seq < (static_cast<std::int64_t>(p.T_k) + p.page_size - 1) / p.page_size) {
      return support_fail(why, "paged KV layout: pages_per_seq " + std::to_string(p.pages_per_seq) +
                                   " holds fewer than T_k = " + std::to_string(p.T_k) + " keys");
    }
  }
  // The smallest query tile is 64 rows; grid.x holds B * H * m-blocks.
  const std::int64_t ctas = static_cast<std::int64_t>(p.B) * p.H * ((p.T_q + 63) / 64);
  if (ctas > 0x7fffffffLL) return support_fail(why, "fa2 grid too large (B * H * T_q / 64)");
  return true;
}

Fa2SplitKv fa2_fwd_decode_plan(const AttnParams& p) {
  // The one choice the memory prediction makes too (fa2_split_choice.h); a variable-length
  // batch runs the plain forward (split-KV and GQA packing take dense ones).
  return fa2_decode_plan_for(p, attn_varlen(p),
                             fa2_decode_inputs(device_sm_count(), device_smem_optin()));
}

std::int64_t fa2_fwd_split_workspace_bytes(const AttnParams& p, int n_splits) {
  return fa2_split_workspace_bytes(p, n_splits);
}

std::int64_t fa2_fwd_split_workspace_bytes(const AttnParams& p, const Fa2SplitKv& plan) {
  return fa2_plan_workspace_bytes(p, plan);
}

cudaError_t fa2_fwd(const AttnParams& p, const Fa2SplitKv& split, cudaStream_t stream) {
  // A paged cache takes the decode kernels whatever the plan: the plain ones read no pages.
  const bool paged = p.block_table != nullptr;
  if (split.n_splits <= 1 && !split.pack_gqa && !paged) return fa2_fwd(p, stream);
  if (attn_varlen(p)) return cudaErrorInvalidValue;  // fa2_fwd_decode_plan never plans one
  std::string why;
  // The decode kernels have no padded head dims (fa2_fwd_decode_plan plans none for them).
  if (!fa2_fwd_supported(p, &why) || !fa2_head_dim_supported(p.D)) return cudaErrorInvalidValue;
  if (fa2_plan_uses_workspace(p, split) &&
      (split.o_partial == nullptr || split.lse_partial == nullptr)) {
    return cudaErrorInvalidValue;
  }
  return FA2B_FP16_SWITCH(p.dtype == KernelDType::bf16, T, [&] {
    return fa2_dispatch_head_dim(
        p.D, [&](auto kD) { return run_fa2_fwd_decode<T, decltype(kD)::value>(p, split, stream); });
  });
}

cudaError_t fa2_fwd(const AttnParams& p, cudaStream_t stream) {
  std::string why;
  if (!fa2_fwd_supported(p, &why)) return cudaErrorInvalidValue;
  // The plain kernels read no pages (a paged cache runs through the plan's overload).
  if (attn_paged(p)) return cudaErrorInvalidValue;
  const int tile_d = fa2_padded_head_dim(p.D);
  return FA2B_FP16_SWITCH(p.dtype == KernelDType::bf16, T, [&] {
    return fa2_dispatch_head_dim(tile_d, [&](auto kD) {
      constexpr int d = decltype(kD)::value;
      return p.D == d ? run_fa2_fwd<T, d>(p, stream) : run_fa2_fwd_padded<T, d>(p, stream);
    });
  });
}

}  // namespace fa2b
