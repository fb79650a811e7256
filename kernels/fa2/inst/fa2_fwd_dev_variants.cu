// SPDX-License-Identifier: Apache-2.0
// Tuning variants (FA2BENCH_DEV_KERNELS=ON only): the candidate tiles of fa2_dev_tiles.cuh with
// each CTA order, for `fa2bench tune` and the kernel micro-benchmark
// (tests/bench/bench_fa2_kernel.cpp). Not used by fa2_fwd(). These strong definitions replace
// the weak ones of fa2_fwd_dev_variants_absent.cu.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <string>

#include "fa2/fa2_dev_tiles.h"
#include "fa2/fa2_fwd.h"
#include "fa2/fa2_fwd_launch.h"

namespace fa2b {
namespace {

struct Variant {
  int D;
  int tile;  // Tile<D, tile> of fa2_dev_tiles.cuh
  Fa2Order order;
  const char* name;  // warps x m-tiles per warp, Br x Bc, Q in registers, K/V stages, order
};

constexpr Fa2Order kHead = Fa2Order::kHeadMajor;
constexpr Fa2Order kHeavy = Fa2Order::kHeavyFirst;

// clang-format off
constexpr Variant kVariants[] = {
    {64,  0, kHead,  "4wx2 128x64 qreg s1 head"},
    {64,  1, kHead,  "4wx2 128x64 qreg s2 head"},
    {64,  2, kHead,  "4wx1 64x64 qreg s1 head"},
    {64,  2, kHeavy, "4wx1 64x64 qreg s1 heavy"},
    {64,  3, kHeavy, "4wx1 64x64 qreg s2 heavy"},
    {128, 0, kHead,  "4wx2 128x32 s1 head"},
    {128, 0, kHeavy, "4wx2 128x32 s1 heavy"},
    {128, 1, kHead,  "4wx2 128x32 s2 head"},
    {128, 2, kHead,  "8wx1 128x64 qreg s1 head"},
    {128, 3, kHead,  "8wx1 128x64 qreg s2 head"},
    {128, 3, kHeavy, "8wx1 128x64 qreg s2 heavy"},
    {128, 4, kHead,  "4wx1 64x64 qreg s1 head"},
    {128, 4, kHeavy, "4wx1 64x64 qreg s1 heavy"},
    {128, 5, kHead,  "4wx1 64x64 qreg s2 head"},
    {128, 5, kHeavy, "4wx1 64x64 qreg s2 heavy"},
    {128, 6, kHead,  "4wx1 64x64 s2 lazy 3cta head"},
    {128, 6, kHeavy, "4wx1 64x64 s2 lazy 3cta heavy"},
    {128, 7, kHead,  "4wx2 128x64 s1 lazy head"},
    {128, 7, kHeavy, "4wx2 128x64 s1 lazy heavy"},
    {128, 8, kHead,  "4wx2 128x64 s2 lazy head"},
    {128, 9, kHead,  "8wx1 128x64 qreg s1 lazy head"},
    {128, 9, kHeavy, "8wx1 128x64 qreg s1 lazy heavy"},
    {256, 0, kHead,  "4wx1 64x64 s1 head"},
    {256, 0, kHeavy, "4wx1 64x64 s1 heavy"},
    {256, 1, kHead,  "4wx1 64x64 s2 head"},
    {256, 2, kHead,  "4wx1 64x32 s2 head"},
    {256, 2, kHeavy, "4wx1 64x32 s2 heavy"},
    {256, 3, kHead,  "8wx1 128x64 s1 head"},
    {256, 3, kHeavy, "8wx1 128x64 s1 heavy"},
    {256, 4, kHead,  "8wx1 128x64 s1 lazy head"},
    {256, 5, kHead,  "8wx1 128x32 s2 head"},
    {256, 6, kHead,  "4wx1 64x32 qreg s1 head"},
    {256, 6, kHeavy, "4wx1 64x32 qreg s1 heavy"},
    {256, 7, kHead,  "8wx1 128x32 qreg s1 head"},
    {256, 8, kHead,  "4wx1 64x64 q4reg s1 head"},
    {256, 9, kHead,  "4wx1 64x64 q6reg s1 head"},
};
// clang-format on

// The variant-th candidate of head dim D (1-based; 0 is the shipped dispatch), or null.
const Variant* find(int D, int variant) {
  int seen = 0;
  for (const Variant& v : kVariants) {
    if (v.D == D && ++seen == variant) return &v;
  }
  return nullptr;
}

template <typename T>
cudaError_t run_variant(const AttnParams& p, const Variant& v, cudaStream_t s) {
  switch (v.D * 16 + v.tile) {
    case 64 * 16 + 0:
      return dev::run_tile<T, 64, 0>(p, v.order, s);
    case 64 * 16 + 1:
      return dev::run_tile<T, 64, 1>(p, v.order, s);
    case 64 * 16 + 2:
      return dev::run_tile<T, 64, 2>(p, v.order, s);
    case 64 * 16 + 3:
      return dev::run_tile<T, 64, 3>(p, v.order, s);
    case 128 * 16 + 0:
      return dev::run_tile<T, 128, 0>(p, v.order, s);
    case 128 * 16 + 1:
      return dev::run_tile<T, 128, 1>(p, v.order, s);
    case 128 * 16 + 2:
      return dev::run_tile<T, 128, 2>(p, v.order, s);
    case 128 * 16 + 3:
      return dev::run_tile<T, 128, 3>(p, v.order, s);
    case 128 * 16 + 4:
      return dev::run_tile<T, 128, 4>(p, v.order, s);
    case 128 * 16 + 5:
      return dev::run_tile<T, 128, 5>(p, v.order, s);
    case 128 * 16 + 6:
      return dev::run_tile<T, 128, 6>(p, v.order, s);
    case 128 * 16 + 7:
      return dev::run_tile<T, 128, 7>(p, v.order, s);
    case 128 * 16 + 8:
      return dev::run_tile<T, 128, 8>(p, v.order, s);
    case 128 * 16 + 9:
      return dev::run_tile<T, 128, 9>(p, v.order, s);
    case 256 * 16 + 0:
      return dev::run_tile<T, 256, 0>(p, v.order, s);
    case 256 * 16 + 1:
      return dev::run_tile<T, 256, 1>(p, v.order, s);
    case 256 * 16 + 2:
      return dev::run_tile<T, 256, 2>(p, v.order, s);
    case 256 * 16 + 3:
      return dev::run_tile<T, 256, 3>(p, v.order, s);
    case 256 * 16 + 4:
      return dev::run_tile<T, 256, 4>(p, v.order, s);
    case 256 * 16 + 5:
      return dev::run_tile<T, 256, 5>(p, v.order, s);
    case 256 * 16 + 6:
      return dev::run_tile<T, 256, 6>(p, v.order, s);
    case 256 * 16 + 7:
      return dev::run_tile<T, 256, 7>(p, v.order, s);
    case 256 * 16 + 8:
      return dev::run_tile<T, 256, 8>(p, v.order, s);
    case 256 * 16 + 9:
      return dev::run_tile<T, 256, 9>(p, v.order, s);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace

int fa2_fwd_dev_variant_count(int D) {
  int n = 1;  // the shipped dispatch
  for (const Variant& v : kVariants) n += v.D == D ? 1 : 0;
  return n;
}

const char* fa2_fwd_dev_variant_name(int D, int variant) {
  if (variant == 0) return "shipped";
  const Variant* v = find(D, variant);
  return v == nullptr ? nullptr : v->name;
}

cudaError_t fa2_fwd_dev_variant(const AttnParams& p, int variant, cudaStream_t stream) {
  if (variant == 0) return fa2_fwd(p, stream);
  const Variant* v = find(p.D, variant);
  if (v == nullptr) return cudaErrorInvalidValue;
  std::string why;
  if (!fa2_fwd_supported(p, &why)) return cudaErrorInvalidValue;
  if (p.dtype == KernelDType::bf16) return run_variant<__nv_bfloat16>(p, *v, stream);
  return run_variant<__half>(p, *v, stream);
}

}  // namespace fa2b
