// SPDX-License-Identifier: Apache-2.0
// The forward's query-tile order (common/tile_order.h) without a GPU: every tile exactly once,
// the pairs of one L2 section before the next section's, heaviest first within a section, and
// the section sizes on the perf grid's shapes.
#include <gtest/gtest.h>

#include <vector>

#include "common/tile_order.h"

namespace fa2b {
namespace {

constexpr std::int64_t kMiB = 1024 * 1024;

void expect_order(int num_m, int num_bh, int section) {
  SCOPED_TRACE(testing::Message() << "num_m " << num_m << " num_bh " << num_bh << " section "
                                  << section);
  std::vector<int> seen(static_cast<std::size_t>(num_m) * num_bh, 0);
  int last_section = 0;
  int last_m = num_m;  // heaviest (last) m-block first within a section
  for (int t = 0; t < num_m * num_bh; ++t) {
    const QueryTilePlace at = l2_section_tile(t, num_m, num_bh, section);
    ASSERT_GE(at.m_block, 0);
    ASSERT_LT(at.m_block, num_m);
    ASSERT_GE(at.bh, 0);
    ASSERT_LT(at.bh, num_bh);
    ++seen[static_cast<std::size_t>(at.bh) * num_m + at.m_block];
    const int s = at.bh / section;
    ASSERT_GE(s, last_section) << "tile " << t << " went back to an earlier section";
    if (s > last_section) last_m = num_m;
    ASSERT_LE(at.m_block, last_m) << "tile " << t << " is heavier than the one before it";
    last_section = s;
    last_m = at.m_block;
  }
  for (std::size_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i], 1) << "tile slot " << i;
}

TEST(TileOrder, EveryTileOnceSectionBySectionHeaviestFirst) {
  expect_order(16, 128, 25);  // a remainder section of 3 pairs
  expect_order(4, 512, 100);
  expect_order(64, 32, 6);
  expect_order(1, 7, 3);
  expect_order(5, 1, 1);
  expect_order(3, 10, 10);  // one section: heaviest first over all pairs
  expect_order(3, 10, 1);   // one pair at a time: each pair's tiles together
}

TEST(TileOrder, OneSectionIsTheHeavyFirstOrderOverAllPairs) {
  // section == num_bh: the order before L2 sections, every pair's last m-block first.
  for (int t = 0; t < 4 * 6; ++t) {
    const QueryTilePlace at = l2_section_tile(t, 4, 6, 6);
    EXPECT_EQ(at.m_block, 3 - t / 6);
    EXPECT_EQ(at.bh, t % 6);
  }
}

TEST(TileOrder, SectionPairsFitTheBudget) {
  // bf16 D = 128, 25 MiB: K and V of one pair are 2 * T_k * 256 bytes.
  EXPECT_EQ(l2_section_pairs(25 * kMiB, 128, 2048, 128, 2, 16, 16), 25);  // 1 MiB a pair
  EXPECT_EQ(l2_section_pairs(25 * kMiB, 512, 512, 128, 2, 16, 16), 100);  // 256 KiB
  EXPECT_EQ(l2_section_pairs(25 * kMiB, 32, 8192, 128, 2, 16, 16), 6);    // 4 MiB
  EXPECT_EQ(l2_section_pairs(25 * kMiB, 16, 65536, 256, 2, 16, 16), 1);   // 64 MiB: at least 1
  EXPECT_EQ(l2_section_pairs(25 * kMiB, 8, 512, 128, 2, 8, 8), 8);        // at most num_bh
  // Grouped queries: the 4 heads of a KV group share its K and V.
  EXPECT_EQ(l2_section_pairs(25 * kMiB, 128, 2048, 128, 2, 32, 8), 100);
}

}  // namespace
}  // namespace fa2b
