// SPDX-License-Identifier: Apache-2.0
// How many slices fa2's forward splits the key axis into (split-KV, "flash-decoding"): pure
// host functions of the shape, the device's multiprocessors and an optional forced count, so a
// unit test checks the choice without a GPU (tests/unit/test_fa2_split_choice.cpp).
//
// A decode step (a few query rows against a long key cache) launches B * H CTAs, too few to fill
// the GPU, and each walks the whole key axis. Splitting the keys into n_splits slices multiplies
// the CTAs; a combine kernel then merges the slices' outputs by their log-sum-exps. The count is
// flash-attention's num_splits_heuristic: no split once the grid nearly fills the resident
// slots (0.8 x SMs x CTAs per SM); else the smallest count whose waves are at least 85% as full
// as the best count's, among counts that change the key blocks per split (12 splits of 64
// blocks are 11 splits of 6 blocks and an empty one), at most 128 and at most one per key block.
//
// Only grids of one query block per (batch, head) split by shape (T_q up to the split tile's
// rows: decode): prefill grids keep the tuned path of fa2_traits.h unchanged. A forced count
// (FA2BENCH_FA2_SPLITS, for tests) applies to any shape.
//
// GQA packing (fa2_choose_gqa_pack): with H_kv < H, when a KV group's G = H / H_kv query heads
// times T_q rows fit one query tile, they share a CTA, which reads each K/V tile once for the
// group rather than once per query head; the grid then has B * H_kv CTAs before the split.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "common/attn_mask.h"
#include "common/attn_params.h"
#include "common/env_knobs.h"
#include "common/head_dims.h"
#include "fa2/fa2_split_kv.h"
#include "fa2/fa2_tile_choice.h"
#include "fa2/fa2_traits.h"

namespace fa2b {

// Key blocks a split walks at the least (shape-chosen counts only): below that the combine and
// the per-split prologue cost more than the extra CTAs bring (H200, B = 1, H_kv = 8 packed,
// T_k = 4096: 26.0 us at 32 splits of 2 blocks, 21.0 at 16 of 4, 20.7 at 8 of 8;
// docs/performance.md, decode).
constexpr int kFa2MinBlocksPerSplit = 4;
// CTAs of the split tile (the small-grid tile of fa2_traits.h) assumed resident per SM: their
// 128 threads at up to 255 registers allow two.
constexpr int kFa2SplitCtasPerSm = 2;

// flash-attention's num_splits_heuristic: `ctas` CTAs without a split, `slots` CTAs resident
// at once on the whole GPU, `key_blocks` key blocks a CTA walks.
inline int fa2_num_splits_heuristic(std::int64_t ctas, std::int64_t slots, std::int64_t key_blocks,
                                    int max_splits = kFa2MaxSplits) {
  if (ctas <= 0 || slots <= 0 || static_cast<double>(ctas) >= 0.8 * static_cast<double>(slots)) {
    return 1;
  }
  const int most = static_cast<int>(
      std::max<std::int64_t>(1, std::min<std::int64_t>({max_splits, slots, key_blocks})));
  auto blocks_per_split = [key_blocks](int n) { return (key_blocks + n - 1) / n; };
  auto eligible = [&](int n) { return n == 1 || blocks_per_split(n) != blocks_per_split(n - 1); };
  std::vector<double> efficiency(static_cast<std::size_t>(most) + 1, 0.0);
  double best = 0.0;
  for (int n = 1; n <= most; ++n) {
    if (!eligible(n)) continue;
    const double waves = static_cast<double>(ctas) * n / static_cast<double>(slots);
    efficiency[n] = waves / std::ceil(waves);
    best = std::max(best, efficiency[n]);
  }
  for (int n = 1; n <= most; ++n) {
    if (eligible(n) && efficiency[n] >= 0.85 * best) return n;
  }
  return 1;
}

// Rows and keys of the tile the split path launches (the small-grid tile; masked: causal or a
// window, Fa2CausalTraits). D must be one of Fa2HeadDims.
struct Fa2SplitTile {
  int block_m;
  int block_n;
};
inline Fa2SplitTile fa2_split_tile(int D, bool masked) {
  return fa2_dispatch_head_dim(D, [masked](auto kD) {
    constexpr int d = decltype(kD)::value;
    return masked
               ? Fa2SplitTile{Fa2CausalTraits<d, true>::kBlockM, Fa2CausalTraits<d, true>::kBlockN}
               : Fa2SplitTile{Fa2Traits<d, true>::kBlockM, Fa2Traits<d, true>::kBlockN};
  });
}

// Key blocks the CTA that sees the most keys walks: every block of T_k, unless a sliding
// window's left bound limits a block of `block_m` rows to left + right + block_m keys (one
// more block for a window that straddles block edges on both sides).
inline std::int64_t fa2_split_key_blocks(const AttnParams& p, Fa2SplitTile tile) {
  const std::int64_t all = (static_cast<std::int64_t>(p.T_k) + tile.block_n - 1) / tile.block_n;
  const MaskReach reach = mask_reach(p);
  if (reach.left >= p.T_k) return all;
  const std::int64_t width = static_cast<std::int64_t>(reach.left) + reach.right + tile.block_m;
  return std::min(all, width / tile.block_n + 2);
}

// Bytes of one split's slice of the split workspace (fa2_split_kv.h): its float32 partial
// outputs and log-sum-exps, 4 * B * H * T_q * (D + 1).
inline std::int64_t fa2_split_slice_bytes(const AttnParams& p) {
  return 4LL * p.B * p.H * p.T_q * (p.D + 1);
}

// Bytes of the split workspace of n_splits splits; none for one split.
inline std::int64_t fa2_split_workspace_bytes(const AttnParams& p, int n_splits) {
  return n_splits <= 1 ? 0 : n_splits * fa2_split_slice_bytes(p);
}

// Whether the forward of `plan` stages rows in the split workspace (plan.n_splits slices of it):
// when it splits, and for a paged KV cache (AttnParams::block_table) whose heads are not packed,
// since only the decode kernels read pages and the unpacked one is the split kernel, which runs
// unsplit too, its one slice merged by the combine; the packed kernel writes O itself.
inline bool fa2_plan_uses_workspace(const AttnParams& p, const Fa2SplitKv& plan) {
  return plan.n_splits > 1 || (attn_paged(p) && !plan.pack_gqa);
}

// Bytes of the workspace the forward of `plan` needs: fa2_split_workspace_bytes of its splits,
// counting the paged unsplit forward's one; 0 when it uses none.
inline std::int64_t fa2_plan_workspace_bytes(const AttnParams& p, const Fa2SplitKv& plan) {
  if (!fa2_plan_uses_workspace(p, plan)) return 0;
  return std::max(plan.n_splits, 1) * fa2_split_slice_bytes(p);
}

// Whether the forward packs each KV group's query heads into one CTA: grouped-query heads
// (H_kv < H) whose G * T_q rows fit the decode tile, on a device that fits that tile
// (`split_tile_fits`), unless `enabled` is false (FA2BENCH_FA2_GQA_PACK=0).
inline bool fa2_choose_gqa_pack(const AttnParams& p, bool split_tile_fits, bool enabled = true) {
  if (!enabled || !split_tile_fits || !fa2_head_dim_supported(p.D) || p.H_kv <= 0 ||
      p.H <= p.H_kv || p.H % p.H_kv != 0 || p.T_q <= 0) {
    return false;
  }
  const Fa2SplitTile tile = fa2_split_tile(p.D, attn_masked(p));
  return static_cast<std::int64_t>(p.H / p.H_kv) * p.T_q <= tile.block_m;
}

// The split count of a forward on a device of `num_sms` multiprocessors whose split tile fits
// its shared memory (`split_tile_fits`; else 1), with its KV groups packed (`packed`,
// fa2_choose_gqa_pack) or not. `forced` > 0 (FA2BENCH_FA2_SPLITS) replaces the heuristic,
// capped at kFa2MaxSplits and at what grid.x holds; it may exceed the key blocks, so tests reach
// splits that see no key.
inline int fa2_choose_num_splits(const AttnParams& p, int num_sms, bool split_tile_fits,
                                 int forced = 0, bool packed = false) {
  if (!split_tile_fits || !fa2_head_dim_supported(p.D) || p.T_k <= 0 || p.T_q <= 0) return 1;
  const Fa2SplitTile tile = fa2_split_tile(p.D, attn_masked(p));
  const std::int64_t m_blocks =
      packed ? 1 : (static_cast<std::int64_t>(p.T_q) + tile.block_m - 1) / tile.block_m;
  const std::int64_t ctas = static_cast<std::int64_t>(p.B) * (packed ? p.H_kv : p.H) * m_blocks;
  if (ctas <= 0) return 1;
  const std::int64_t grid_cap = 0x7fffffffLL / ctas;
  if (forced > 0) {
    return static_cast<int>(
        std::max<std::int64_t>(1, std::min<std::int64_t>({forced, kFa2MaxSplits, grid_cap})));
  }
  if (m_blocks > 1) return 1;
  const std::int64_t key_blocks = fa2_split_key_blocks(p, tile);
  const int most = static_cast<int>(
      std::clamp<std::int64_t>(key_blocks / kFa2MinBlocksPerSplit, 1, kFa2MaxSplits));
  const int n = fa2_num_splits_heuristic(
      ctas, static_cast<std::int64_t>(num_sms) * kFa2SplitCtasPerSm, key_blocks, most);
  return static_cast<int>(std::min<std::int64_t>(n, grid_cap));
}

// What the decode plan depends on beyond the shape: the device's multiprocessors and opt-in
// shared memory per block, and the test overrides of the environment. One struct, so that the
// launcher (fa2_fwd_decode_plan, fa2_fwd.cu) and the memory prediction without a GPU
// (backends/predicted_memory.cpp: `plan --sms N`, the runner's predicted_bytes) choose alike.
struct Fa2DecodeInputs {
  int num_sms = 0;              // multiprocessors (FA2BENCH_FA2_NUM_SMS replaces the device's)
  std::int64_t smem_limit = 0;  // opt-in bytes per block, FA2BENCH_FA2_SMEM_LIMIT applied
  int forced_splits = 0;        // FA2BENCH_FA2_SPLITS; 0: the heuristic
  bool gqa_pack = true;         // FA2BENCH_FA2_GQA_PACK is not "0"
};

// A positive integer from the environment variable `name`; 0 when unset or not one.
inline int fa2_env_positive_int(const char* name) {
  const char* env = knob::value(name);
  if (env == nullptr) return 0;
  char* end = nullptr;
  const long v = std::strtol(env, &end, 10);
  return end != env && *end == '\0' && v > 0 && v <= 0x7fffffffL ? static_cast<int>(v) : 0;
}

// The inputs on a device of `device_sms` multiprocessors allowing `device_smem_optin` bytes per
// block, with the environment's overrides applied as the launcher applies them.
inline Fa2DecodeInputs fa2_decode_inputs(int device_sms, std::int64_t device_smem_optin) {
  Fa2DecodeInputs in;
  const int forced_sms = fa2_env_positive_int(knob::kFa2NumSms);
  in.num_sms = forced_sms > 0 ? forced_sms : device_sms;
  const int forced_smem = fa2_env_positive_int(knob::kFa2SmemLimit);
  in.smem_limit = forced_smem > 0 && (device_smem_optin <= 0 || forced_smem < device_smem_optin)
                      ? forced_smem
                      : device_smem_optin;
  in.forced_splits = fa2_env_positive_int(knob::kFa2Splits);
  const char* pack_env = knob::value(knob::kFa2GqaPack);
  in.gqa_pack = pack_env == nullptr || std::strcmp(pack_env, "0") != 0;
  return in;
}

// fa2's decode plan of a forward (split count and GQA packing); `varlen`: a variable-length
// batch, which runs the plain forward. The launcher's plan and the prediction's.
inline Fa2SplitKv fa2_decode_plan_for(const AttnParams& p, bool varlen, const Fa2DecodeInputs& in) {
  Fa2SplitKv plan;
  if (!fa2_head_dim_supported(p.D) || varlen) return plan;
  const bool tile_fits =
      choose_fwd_tile(p.D, attn_masked(p), true, in.smem_limit) == Fa2FwdTile::kSmallGrid;
  plan.pack_gqa = fa2_choose_gqa_pack(p, tile_fits, in.gqa_pack);
  plan.n_splits = fa2_choose_num_splits(p, in.num_sms, tile_fits, in.forced_splits, plan.pack_gqa);
  return plan;
}

// Bytes of the split workspace the forward of `p` allocates under `in` (0 without one); a
// paged case (attn_paged: page_size set) counts like the launcher's, whose table is staged.
inline std::int64_t fa2_decode_workspace_bytes(const AttnParams& p, bool varlen,
                                               const Fa2DecodeInputs& in) {
  return fa2_plan_workspace_bytes(p, fa2_decode_plan_for(p, varlen, in));
}

}  // namespace fa2b
