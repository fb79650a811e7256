// SPDX-License-Identifier: Apache-2.0
// Which fa2 tile a device can launch: pure host functions of (head dim, mask, grid class) and
// the device's opt-in shared memory per block (cudaDevAttrMaxSharedMemoryPerBlockOptin), so a
// unit test checks the choice for every architecture's limit without a GPU.
//
// Opt-in limits per block: 163 KiB on sm_80/87, 99 KiB on sm_86/89 (and sm_120), 227 KiB on
// sm_90 and sm_100. The tables of fa2_traits.h and fa2_bwd_traits.h were tuned on the H200
// (sm_90), where every tile fits, so there the choice is always the table's. Elsewhere:
//   forward:  the grid class's tile when it fits, else the other class's tile for the same head
//             dim and mask (both are instantiated in every unit, and both are exercised by the
//             GPU tests through FA2BENCH_FA2_GRID_CLASS); at 99 KiB only D = 224's large-grid
//             tile (128 KiB) falls back, to its 96 KiB small-grid tile.
//   backward: the tuned tile when it fits, else the compact one (one query-block buffer,
//             64 x 64 blocks: 49-81 KiB up to D = 128, 113-145 KiB above); at 99 KiB D >= 160
//             is `unsupported` with the sizes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include "common/head_dims.h"
#include "fa2/fa2_bwd_traits.h"
#include "fa2/fa2_traits.h"

namespace fa2b {

// Opt-in shared memory per block of the architectures the default build targets, in bytes
// (CUDA C Programming Guide, "Technical Specifications per Compute Capability").
constexpr std::int64_t kSmemOptinSm80 = 163 * 1024;  // A100, also sm_87
constexpr std::int64_t kSmemOptinSm86 = 99 * 1024;   // A10, RTX 30xx; sm_89 (L4, RTX 40xx), sm_120
constexpr std::int64_t kSmemOptinSm90 = 227 * 1024;  // H100, H200; sm_100 too

// The forward's two tile tables (fa2_traits.h): the small-grid one or the large-grid one
// (Fa2CausalTraits<D, small> when masked: causal or a sliding window, attn_masked();
// Fa2Traits<D, small> otherwise).
enum class Fa2FwdTile : int { kLargeGrid = 0, kSmallGrid = 1 };

// Dynamic shared memory of the forward tile (bytes); D must be one of Fa2HeadDims.
inline std::int64_t fa2_fwd_tile_smem(int D, bool masked, Fa2FwdTile tile) {
  return fa2_dispatch_head_dim(D, [&](auto kD) -> std::int64_t {
    constexpr int d = decltype(kD)::value;
    if (masked) {
      return tile == Fa2FwdTile::kSmallGrid ? Fa2CausalTraits<d, true>::kSmemBytes
                                            : Fa2CausalTraits<d, false>::kSmemBytes;
    }
    return tile == Fa2FwdTile::kSmallGrid ? Fa2Traits<d, true>::kSmemBytes
                                          : Fa2Traits<d, false>::kSmemBytes;
  });
}

// The tile to launch for a grid of class `small_grid` on a device allowing `smem_limit` bytes
// per block: that class's tile when it fits, else the other class's; nullopt when neither fits.
inline std::optional<Fa2FwdTile> choose_fwd_tile(int D, bool masked, bool small_grid,
                                                 std::int64_t smem_limit) {
  const Fa2FwdTile preferred = small_grid ? Fa2FwdTile::kSmallGrid : Fa2FwdTile::kLargeGrid;
  const Fa2FwdTile other = small_grid ? Fa2FwdTile::kLargeGrid : Fa2FwdTile::kSmallGrid;
  if (fa2_fwd_tile_smem(D, masked, preferred) <= smem_limit) return preferred;
  if (fa2_fwd_tile_smem(D, masked, other) <= smem_limit) return other;
  return std::nullopt;
}

// The backward's two tables (fa2_bwd_traits.h): the tuned one and the compact one.
enum class Fa2BwdTile : int { kTuned = 0, kCompact = 1 };

// Dynamic shared memory of the backward tile of head dim D (bytes).
inline std::int64_t fa2_bwd_tile_smem(int D, Fa2BwdTile tile = Fa2BwdTile::kTuned) {
  return fa2_dispatch_head_dim(D, [tile](auto kD) -> std::int64_t {
    constexpr int d = decltype(kD)::value;
    return tile == Fa2BwdTile::kTuned ? Fa2BwdTraits<d>::kSmemBytes
                                      : Fa2BwdCompactTraits<d>::kSmemBytes;
  });
}

// The backward tile for a device allowing `smem_limit` bytes per block: the tuned one when it
// fits, else the compact one; nullopt when neither fits.
inline std::optional<Fa2BwdTile> choose_bwd_tile(int D, std::int64_t smem_limit) {
  if (fa2_bwd_tile_smem(D, Fa2BwdTile::kTuned) <= smem_limit) return Fa2BwdTile::kTuned;
  if (fa2_bwd_tile_smem(D, Fa2BwdTile::kCompact) <= smem_limit) return Fa2BwdTile::kCompact;
  return std::nullopt;
}

// "96 KiB" (rounded up to whole KiB), for support messages.
inline std::string fa2_kib_text(std::int64_t bytes) {
  return std::to_string((bytes + 1023) / 1024) + " KiB";
}

// Empty when a forward (and, with `backward`, a backward) tile of (D, masked) fits
// `smem_limit`; otherwise why not, naming the sizes. A limit of 0 or less means unknown: the
// launchers still refuse a tile that does not fit.
inline std::string fa2_smem_unsupported_reason(int D, bool masked, bool backward,
                                               std::int64_t smem_limit) {
  if (smem_limit <= 0 || !fa2_head_dim_supported(D)) return {};
  if (!choose_fwd_tile(D, masked, false, smem_limit)) {
    const std::int64_t need = std::min(fa2_fwd_tile_smem(D, masked, Fa2FwdTile::kLargeGrid),
                                       fa2_fwd_tile_smem(D, masked, Fa2FwdTile::kSmallGrid));
    return "fa2 forward at D=" + std::to_string(D) + " needs " + fa2_kib_text(need) +
           " of shared memory per block; this device allows " + fa2_kib_text(smem_limit);
  }
  if (backward && !choose_bwd_tile(D, smem_limit)) {
    return "fa2 backward at D=" + std::to_string(D) + " needs " +
           fa2_kib_text(fa2_bwd_tile_smem(D, Fa2BwdTile::kCompact)) +
           " of shared memory per block (its compact tile); this device allows " +
           fa2_kib_text(smem_limit);
  }
  return {};
}

}  // namespace fa2b
