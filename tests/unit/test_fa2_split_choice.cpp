// SPDX-License-Identifier: Apache-2.0
// fa2's split-KV count (fa2_split_choice.h) without a GPU: flash-attention's heuristic on the
// issue's decode shapes, one split (today's path) for grids that fill the GPU and for prefill
// grids, the forced count's caps, splits of at least one key block, and the workspace size
// (a paged cache's unsplit one included).
#include <gtest/gtest.h>

#include <cstdint>

#include "common/head_dims.h"
#include "fa2/fa2_split_choice.h"

namespace fa2b {
namespace {

constexpr int kH200Sms = 132;

AttnParams decode(int B, int H, int H_kv, int T_q, int T_k, int D = 128, bool causal = true) {
  AttnParams p;
  p.B = B;
  p.H = H;
  p.H_kv = H_kv;
  p.T_q = T_q;
  p.T_k = T_k;
  p.D = D;
  p.causal = causal;
  p.dtype = KernelDType::bf16;
  return p;
}

TEST(Fa2SplitChoice, HeuristicMatchesFlashAttention) {
  // Values of flash-attention's num_splits_heuristic (132 SMs x 2 slots = 264).
  EXPECT_EQ(fa2_num_splits_heuristic(32, 264, 2048), 8);  // 256 CTAs: 0.97 of a wave
  // One CTA: the best count is the cap (128 CTAs, 0.48 of a wave); the first eligible count
  // within 85% of that is 114 (ceil(2048 / 114) = 18 blocks per split, 113 splits need 19).
  EXPECT_EQ(fa2_num_splits_heuristic(1, 264, 2048), 114);
  EXPECT_EQ(fa2_num_splits_heuristic(256, 264, 2048), 1);  // fills the GPU already
  EXPECT_EQ(fa2_num_splits_heuristic(212, 264, 2048), 1);  // >= 0.8 of the slots
  EXPECT_EQ(fa2_num_splits_heuristic(32, 264, 1), 1);      // one key block: nothing to split
  EXPECT_EQ(fa2_num_splits_heuristic(32, 264, 3), 3);      // at most one split per key block
  EXPECT_EQ(fa2_num_splits_heuristic(0, 264, 100), 1);
}

TEST(Fa2SplitChoice, EveryCountIsEligibleAndBounded) {
  for (std::int64_t ctas : {1, 2, 3, 7, 32, 100, 150, 211}) {
    for (std::int64_t blocks : {1, 2, 5, 16, 64, 65, 2048}) {
      const int n = fa2_num_splits_heuristic(ctas, 264, blocks);
      EXPECT_GE(n, 1);
      EXPECT_LE(n, kFa2MaxSplits);
      EXPECT_LE(n, blocks) << ctas << " " << blocks;
      if (n > 1) {  // no empty split: n splits of ceil(blocks / n) differ from n - 1 splits
        EXPECT_NE((blocks + n - 1) / n, (blocks + n - 2) / (n - 1)) << ctas << " " << blocks;
      }
    }
  }
}

TEST(Fa2SplitChoice, DecodeShapesOfTheIssueSplit) {
  // B = 1, H = 32, T_q = 1: 32 CTAs on 132 SMs; the long caches split, 8 ways at 128K.
  EXPECT_EQ(fa2_choose_num_splits(decode(1, 32, 8, 1, 131072), kH200Sms, true), 8);
  EXPECT_EQ(fa2_choose_num_splits(decode(1, 32, 32, 4, 32768), kH200Sms, true), 7);
  // B = 8: 256 CTAs are 0.97 of the 264 slots already.
  EXPECT_EQ(fa2_choose_num_splits(decode(8, 32, 8, 1, 4096), kH200Sms, true), 1);
  // The forced multiprocessor count (FA2BENCH_FA2_NUM_SMS) moves the choice: a small shape
  // splits on a pretend 1000-SM device.
  EXPECT_GT(fa2_choose_num_splits(decode(2, 4, 2, 17, 4097), 1000, true), 1);
}

TEST(Fa2SplitChoice, FullGridsAndPrefillKeepOneSplit) {
  // B = 64, H = 32: 2048 CTAs fill the GPU.
  EXPECT_EQ(fa2_choose_num_splits(decode(64, 32, 8, 1, 131072), kH200Sms, true), 1);
  // A prefill grid (more than one query block) is never split by shape.
  EXPECT_EQ(fa2_choose_num_splits(decode(1, 2, 2, 1000, 1000), kH200Sms, true), 1);
  // Nothing to split, or no split tile on this device.
  EXPECT_EQ(fa2_choose_num_splits(decode(1, 32, 8, 1, 64), kH200Sms, true), 1);
  EXPECT_EQ(fa2_choose_num_splits(decode(1, 32, 8, 1, 131072), kH200Sms, false), 1);
  EXPECT_EQ(fa2_choose_num_splits(decode(1, 32, 8, 1, 131072, 100), kH200Sms, true), 1);
}

TEST(Fa2SplitChoice, WindowLimitsTheSplitsToItsKeyBlocks) {
  AttnParams p = decode(1, 32, 8, 1, 131072);
  p.window_left = 100;  // the row sees 101 keys: at most 3 key blocks of 64
  const Fa2SplitTile tile = fa2_split_tile(128, true);
  EXPECT_EQ(fa2_split_key_blocks(p, tile), (100 + 0 + tile.block_m) / tile.block_n + 2);
  EXPECT_LE(fa2_choose_num_splits(p, kH200Sms, true), fa2_split_key_blocks(p, tile));
}

TEST(Fa2SplitChoice, ForcedCountAppliesToAnyShapeWithinItsCaps) {
  EXPECT_EQ(fa2_choose_num_splits(decode(1, 2, 2, 17, 17), kH200Sms, true, 5), 5);  // > blocks
  EXPECT_EQ(fa2_choose_num_splits(decode(64, 32, 8, 1000, 1000), kH200Sms, true, 3), 3);
  EXPECT_EQ(fa2_choose_num_splits(decode(1, 2, 2, 17, 17), kH200Sms, true, 1000), kFa2MaxSplits);
  // grid.x = B * H * m-blocks * n_splits stays within 2^31 - 1.
  EXPECT_EQ(fa2_choose_num_splits(decode(1 << 16, 1 << 10, 1, 64, 64), kH200Sms, true, 128), 31);
  EXPECT_EQ(fa2_choose_num_splits(decode(1, 2, 2, 17, 17), kH200Sms, false, 5), 1);
}

TEST(Fa2SplitChoice, GqaPackingWhereAGroupFitsOneTile) {
  // H = 32 over 8 KV heads: 4 query heads a group, 4 or 16 rows at T_q = 1 or 4.
  EXPECT_TRUE(fa2_choose_gqa_pack(decode(1, 32, 8, 1, 131072), true));
  EXPECT_TRUE(fa2_choose_gqa_pack(decode(1, 32, 8, 4, 131072), true));
  // One KV head: 32 rows at T_q = 1 fit D = 128's 64-row tile, 128 rows at T_q = 4 do not.
  EXPECT_TRUE(fa2_choose_gqa_pack(decode(1, 32, 1, 1, 4096), true));
  EXPECT_FALSE(fa2_choose_gqa_pack(decode(1, 32, 1, 4, 4096), true));
  // No groups, packing off, no decode tile on the device, a head dim fa2 lacks.
  EXPECT_FALSE(fa2_choose_gqa_pack(decode(1, 32, 32, 1, 4096), true));
  EXPECT_FALSE(fa2_choose_gqa_pack(decode(1, 32, 8, 1, 4096), true, false));
  EXPECT_FALSE(fa2_choose_gqa_pack(decode(1, 32, 8, 1, 4096), false));
  EXPECT_FALSE(fa2_choose_gqa_pack(decode(1, 32, 8, 1, 4096, 100), true));
  // Every head dim: a group fits exactly when its rows fit the decode tile.
  for (int D : Fa2HeadDims::kValues) {
    const int rows = fa2_split_tile(D, true).block_m;
    EXPECT_TRUE(fa2_choose_gqa_pack(decode(1, rows, 1, 1, 4096, D), true)) << D;
    EXPECT_FALSE(fa2_choose_gqa_pack(decode(1, rows, 1, 2, 4096, D), true)) << D;
  }
}

TEST(Fa2SplitChoice, PackedGridsSplitOverTheirFewerCtas) {
  // Packed, B = 1, H_kv = 8 is 8 CTAs: 29 splits (232 of 264 slots) where 32 unpacked CTAs
  // take 8.
  const AttnParams p = decode(1, 32, 8, 1, 131072);
  EXPECT_EQ(fa2_choose_num_splits(p, kH200Sms, true, 0, true), 29);
  EXPECT_EQ(fa2_choose_num_splits(p, kH200Sms, true, 0, false), 8);
  // B = 64, H_kv = 8 packed is 512 CTAs: no split.
  EXPECT_EQ(fa2_choose_num_splits(decode(64, 32, 8, 1, 131072), kH200Sms, true, 0, true), 1);
  // B = 8, H_kv = 8 packed is 64 CTAs, which unpacked (256) did not split.
  EXPECT_GT(fa2_choose_num_splits(decode(8, 32, 8, 1, 32768), kH200Sms, true, 0, true), 1);
}

TEST(Fa2SplitChoice, ShortCachesKeepFourKeyBlocksPerSplit) {
  // Packed B = 1, H_kv = 8 at T_k = 4096 (64 blocks): the heuristic alone takes 32 splits of 2
  // blocks; the floor of 4 blocks per split caps it at 16.
  EXPECT_EQ(fa2_num_splits_heuristic(8, 264, 64), 32);
  EXPECT_EQ(fa2_choose_num_splits(decode(1, 32, 8, 1, 4096), kH200Sms, true, 0, true), 16);
  // Fewer than 8 blocks: one split; a forced count still applies (tests reach empty splits).
  EXPECT_EQ(fa2_choose_num_splits(decode(1, 32, 8, 1, 448), kH200Sms, true, 0, true), 1);
  EXPECT_EQ(fa2_choose_num_splits(decode(1, 32, 8, 1, 448), kH200Sms, true, 5, true), 5);
  for (int T_k : {512, 4096, 4097, 40000, 131072}) {
    const int n = fa2_choose_num_splits(decode(1, 32, 8, 1, T_k), kH200Sms, true, 0, true);
    EXPECT_GE((T_k + 63) / 64, 4 * n) << T_k;
  }
}

TEST(Fa2SplitChoice, WorkspaceIsFloat32RowsAndLseOfEverySplit) {
  const AttnParams p = decode(2, 32, 8, 4, 4096, 128);
  EXPECT_EQ(fa2_split_workspace_bytes(p, 1), 0);
  EXPECT_EQ(fa2_split_workspace_bytes(p, 8), 8LL * 2 * 32 * 4 * (128 * 4 + 4));
}

// A paged cache always runs the decode kernels: unpacked and unsplit it is the split kernel with
// one split, whose rows go through the workspace; packed and unsplit it writes O itself.
TEST(Fa2SplitChoice, PagedUnpackedForwardUsesOneSplitsWorkspace) {
  AttnParams p = decode(2, 32, 8, 4, 4096, 128);
  const std::int64_t one_split = 4LL * 2 * 32 * 4 * (128 + 1);
  Fa2SplitKv plan;  // one split, not packed
  EXPECT_FALSE(fa2_plan_uses_workspace(p, plan));
  EXPECT_EQ(fa2_plan_workspace_bytes(p, plan), 0);
  const int table = 0;
  p.block_table = &table;  // only compared with null
  EXPECT_TRUE(fa2_plan_uses_workspace(p, plan));
  EXPECT_EQ(fa2_plan_workspace_bytes(p, plan), one_split);
  plan.pack_gqa = true;
  EXPECT_FALSE(fa2_plan_uses_workspace(p, plan));
  EXPECT_EQ(fa2_plan_workspace_bytes(p, plan), 0);
  plan.n_splits = 8;  // splits: as a contiguous cache's
  EXPECT_EQ(fa2_plan_workspace_bytes(p, plan), 8 * one_split);
  p.block_table = nullptr;
  EXPECT_EQ(fa2_plan_workspace_bytes(p, plan), fa2_split_workspace_bytes(p, 8));
}

TEST(Fa2SplitChoice, SplitTileIsTheSmallGridTile) {
  for (int D : Fa2HeadDims::kValues) {
    for (bool masked : {false, true}) {
      const Fa2SplitTile t = fa2_split_tile(D, masked);
      EXPECT_GE(t.block_m, 64) << D;
      EXPECT_EQ(t.block_n % 16, 0) << D;
    }
  }
}

}  // namespace
}  // namespace fa2b
