// SPDX-License-Identifier: Apache-2.0
// fa2's tile choice per architecture's opt-in shared memory per block, without a GPU: sm_90
// keeps every table entry (the H200's tuned tiles, unchanged), smaller limits fall back to the
// other grid class's forward tile or refuse, and nothing chosen ever exceeds the limit.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>

#include "common/head_dims.h"
#include "core/backend_catalog.h"
#include "core/case.h"
#include "fa2/fa2_bwd_workspace.h"
#include "fa2/fa2_grid_class.h"
#include "fa2/fa2_padded_head_dims.h"
#include "fa2/fa2_tile_choice.h"

namespace fa2b {
namespace {

constexpr std::int64_t kLimits[] = {kSmemOptinSm86, kSmemOptinSm80, kSmemOptinSm90};

TEST(Fa2TileChoice, Sm90KeepsTheTunedTables) {
  // The tables of fa2_traits.h / fa2_bwd_traits.h, exactly as before the choice existed.
  for (int D : Fa2HeadDims::kValues) {
    for (bool causal : {false, true}) {
      EXPECT_EQ(choose_fwd_tile(D, causal, false, kSmemOptinSm90), Fa2FwdTile::kLargeGrid) << D;
      EXPECT_EQ(choose_fwd_tile(D, causal, true, kSmemOptinSm90), Fa2FwdTile::kSmallGrid) << D;
      EXPECT_EQ(fa2_smem_unsupported_reason(D, causal, true, kSmemOptinSm90), "") << D;
    }
    EXPECT_EQ(choose_bwd_tile(D, kSmemOptinSm90), Fa2BwdTile::kTuned) << D;
  }
}

TEST(Fa2TileChoice, GridClassFollowsTheQueryTiles) {
  // 132 SMs (H200): small below 4 * 132 = 528 tiles of 128 query rows.
  EXPECT_TRUE(fa2_small_grid_for(1, 8, 8192, 132));   // 8 * 8192 / 128 = 512 tiles
  EXPECT_FALSE(fa2_small_grid_for(1, 9, 8192, 132));  // 576 tiles
  EXPECT_FALSE(fa2_small_grid_for(64, 32, 65, 132));  // 2048 tiles of 65 rows
  // Decode steps: a grid of 2048 one-row tiles still takes the 64-row tile.
  EXPECT_TRUE(fa2_small_grid_for(64, 32, 1, 132));
  EXPECT_TRUE(fa2_small_grid_for(64, 32, 64, 132));
}

TEST(Fa2TileChoice, SmallGridTilesHoldNoMoreRows) {
  // fa2_small_grid_for sends T_q <= 64 to the small-grid tile because it wastes no more query
  // rows than the large-grid one: that needs no small-grid tile to be taller.
  for (int D : Fa2HeadDims::kValues) {
    fa2_dispatch_head_dim(D, [](auto kD) {
      constexpr int d = decltype(kD)::value;
      constexpr int small_rows = Fa2Traits<d, true>::kBlockM;
      constexpr int large_rows = Fa2Traits<d, false>::kBlockM;
      constexpr int small_causal_rows = Fa2CausalTraits<d, true>::kBlockM;
      constexpr int large_causal_rows = Fa2CausalTraits<d, false>::kBlockM;
      EXPECT_LE(small_rows, large_rows) << d;
      EXPECT_LE(small_causal_rows, large_causal_rows) << d;
    });
  }
}

TEST(Fa2TileChoice, PaddedHeadDimsTakeTheNextTile) {
  EXPECT_EQ(fa2_padded_head_dim(8), 32);
  EXPECT_EQ(fa2_padded_head_dim(32), 32);
  EXPECT_EQ(fa2_padded_head_dim(40), 64);
  EXPECT_EQ(fa2_padded_head_dim(80), 96);
  EXPECT_EQ(fa2_padded_head_dim(112), 128);
  EXPECT_EQ(fa2_padded_head_dim(248), 256);
  for (int D : {0, -8, 4, 100, 257, 264}) EXPECT_EQ(fa2_padded_head_dim(D), 0) << D;
  for (int D = 8; D <= 256; D += 8) {
    const int tile = fa2_padded_head_dim(D);
    EXPECT_TRUE(fa2_head_dim_supported(tile)) << D;
    EXPECT_GE(tile, D);
    EXPECT_LT(tile - D, 32) << D;  // the listed dims are 32 apart
  }
  // The padded forward runs the small-grid tile: its size is what a small device is told.
  EXPECT_EQ(fa2_padded_smem_unsupported_reason(80, false, false, kSmemOptinSm86), "");
  EXPECT_EQ(fa2_padded_smem_unsupported_reason(96, false, true, 1024), "");  // listed: not padded
  const std::string why = fa2_padded_smem_unsupported_reason(248, false, false, 64 * 1024);
  EXPECT_NE(why.find("fa2 forward at D=248 (padded into D=256's tile)"), std::string::npos) << why;
}

TEST(Fa2TileChoice, PaddedBackwardNeedsItsTilesBackwardTile) {
  // The backward of a padded head dim runs the next listed head dim's backward tile: where the
  // forward fits a device and that tile does not, the training modes are refused, naming it.
  int refused = 0;
  for (int D = 8; D <= 256; D += 8) {
    const int tile = fa2_padded_head_dim(D);
    if (tile == D) continue;
    const bool fwd_fits = fa2_fwd_tile_smem(tile, false, Fa2FwdTile::kSmallGrid) <= kSmemOptinSm86;
    const bool bwd_fits = choose_bwd_tile(tile, kSmemOptinSm86).has_value();
    const std::string why = fa2_padded_smem_unsupported_reason(D, false, true, kSmemOptinSm86);
    EXPECT_EQ(why.empty(), fwd_fits && bwd_fits) << D << ": " << why;
    if (fwd_fits && !bwd_fits) {
      ++refused;
      EXPECT_NE(why.find("fa2 backward at D=" + std::to_string(D)), std::string::npos) << why;
      EXPECT_EQ(fa2_padded_smem_unsupported_reason(D, false, false, kSmemOptinSm86), "") << D;
    }
  }
  EXPECT_GT(refused, 0);               // the large head dims on a 99 KiB device
  for (int D = 8; D <= 256; D += 8) {  // an H100 runs every one
    EXPECT_EQ(fa2_padded_smem_unsupported_reason(D, true, true, kSmemOptinSm90), "") << D;
  }
}

TEST(Fa2TileChoice, NarrowTilesServeTheTwoHeadDimsBelowThem) {
  // D = 80 and 112 have narrow copies of D = 96's and 128's tiles; 72 and 104 pad 8 columns
  // into them. 88 and 120 (8 under the full tile) keep it; every other head dim has none.
  EXPECT_EQ(fa2_narrow_head_dim(72), 80);
  EXPECT_EQ(fa2_narrow_head_dim(80), 80);
  EXPECT_EQ(fa2_narrow_head_dim(104), 112);
  EXPECT_EQ(fa2_narrow_head_dim(112), 112);
  int served = 0;
  for (int D = -8; D <= 264; D += 8) {
    const int narrow = fa2_narrow_head_dim(D);
    if (narrow == 0) continue;
    ++served;
    EXPECT_TRUE(head_dim_listed(Fa2NarrowHeadDims{}, narrow)) << D;
    EXPECT_EQ(fa2_padded_head_dim(D), narrow + 16) << D;  // the tile it narrows
    EXPECT_LT(narrow - D, 16) << D;
  }
  EXPECT_EQ(served, 4);
}

TEST(Fa2TileChoice, TheSizesOfTheTables) {
  // (Br + 2 * stages * Bc) * pitch * 2 bytes; a change to a table shows up here.
  EXPECT_EQ(fa2_fwd_tile_smem(128, false, Fa2FwdTile::kLargeGrid), 64 * 1024);
  EXPECT_EQ(fa2_fwd_tile_smem(128, true, Fa2FwdTile::kLargeGrid), 64 * 1024);
  EXPECT_EQ(fa2_fwd_tile_smem(128, false, Fa2FwdTile::kSmallGrid), 80 * 1024);
  EXPECT_EQ(fa2_fwd_tile_smem(224, false, Fa2FwdTile::kLargeGrid), 128 * 1024);
  EXPECT_EQ(fa2_fwd_tile_smem(224, false, Fa2FwdTile::kSmallGrid), 96 * 1024);
  EXPECT_EQ(fa2_fwd_tile_smem(256, false, Fa2FwdTile::kLargeGrid), 96 * 1024);
  EXPECT_EQ(fa2_bwd_tile_smem(32), 97 * 1024);
  EXPECT_EQ(fa2_bwd_tile_smem(64), 162 * 1024);
  EXPECT_EQ(fa2_bwd_tile_smem(128), 161 * 1024);
  EXPECT_EQ(fa2_bwd_tile_smem(256), 209 * 1024);
  // Compact: (2 * Bm + 2 * Bn) * pitch * 2 + 2 * Bm * Bn * 2 + 2 * Bm * 4 bytes, one stage.
  EXPECT_EQ(fa2_bwd_tile_smem(32, Fa2BwdTile::kCompact), 49664);
  EXPECT_EQ(fa2_bwd_tile_smem(128, Fa2BwdTile::kCompact), 82432);
  EXPECT_EQ(fa2_bwd_tile_smem(160, Fa2BwdTile::kCompact), 115200);
  EXPECT_EQ(fa2_bwd_tile_smem(256, Fa2BwdTile::kCompact), 147968);
}

TEST(Fa2TileChoice, Sm80AndSm86ForwardFallsBackOnlyAtD224) {
  for (std::int64_t limit : {kSmemOptinSm80, kSmemOptinSm86}) {
    for (int D : Fa2HeadDims::kValues) {
      for (bool causal : {false, true}) {
        // Small grids always get their own tile (all <= 96 KiB).
        EXPECT_EQ(choose_fwd_tile(D, causal, true, limit), Fa2FwdTile::kSmallGrid) << D;
        const Fa2FwdTile want =
            limit == kSmemOptinSm86 && D == 224 ? Fa2FwdTile::kSmallGrid : Fa2FwdTile::kLargeGrid;
        EXPECT_EQ(choose_fwd_tile(D, causal, false, limit), want) << D << " " << limit;
      }
    }
  }
}

TEST(Fa2TileChoice, BackwardFitsOrIsRefusedWithTheSizes) {
  using Tile = std::optional<Fa2BwdTile>;
  for (int D : Fa2HeadDims::kValues) {
    // 99 KiB: the tuned tile at D = 32 only, the compact one up to D = 128, none above.
    const Tile at_sm86 = D == 32    ? Tile(Fa2BwdTile::kTuned)
                         : D <= 128 ? Tile(Fa2BwdTile::kCompact)
                                    : Tile();
    EXPECT_EQ(choose_bwd_tile(D, kSmemOptinSm86), at_sm86) << D;
    // 163 KiB: tuned up to D = 192, compact above.
    const Tile at_sm80 = D <= 192 ? Tile(Fa2BwdTile::kTuned) : Tile(Fa2BwdTile::kCompact);
    EXPECT_EQ(choose_bwd_tile(D, kSmemOptinSm80), at_sm80) << D;
  }
  EXPECT_EQ(fa2_smem_unsupported_reason(160, false, true, kSmemOptinSm86),
            "fa2 backward at D=160 needs 113 KiB of shared memory per block (its compact tile); "
            "this device allows 99 KiB");
  EXPECT_EQ(fa2_smem_unsupported_reason(128, false, true, kSmemOptinSm86), "");
  EXPECT_EQ(fa2_smem_unsupported_reason(256, true, true, kSmemOptinSm80), "");
  // The forward alone runs there.
  EXPECT_EQ(fa2_smem_unsupported_reason(128, false, false, kSmemOptinSm86), "");
  EXPECT_EQ(fa2_smem_unsupported_reason(256, true, false, kSmemOptinSm80), "");
  // Unknown limit: nothing refused here (the launchers still check).
  EXPECT_EQ(fa2_smem_unsupported_reason(256, true, true, 0), "");
}

TEST(Fa2TileChoice, NothingChosenExceedsTheLimit) {
  for (std::int64_t limit :
       {std::int64_t{48 * 1024}, std::int64_t{64 * 1024}, kLimits[0], kLimits[1], kLimits[2]}) {
    for (int D : Fa2HeadDims::kValues) {
      for (bool causal : {false, true}) {
        for (bool small : {false, true}) {
          const auto tile = choose_fwd_tile(D, causal, small, limit);
          if (tile) {
            EXPECT_LE(fa2_fwd_tile_smem(D, causal, *tile), limit);
          } else {
            EXPECT_GT(fa2_fwd_tile_smem(D, causal, Fa2FwdTile::kLargeGrid), limit);
            EXPECT_GT(fa2_fwd_tile_smem(D, causal, Fa2FwdTile::kSmallGrid), limit);
            EXPECT_NE(fa2_smem_unsupported_reason(D, causal, false, limit), "");
          }
        }
      }
      const auto bwd = choose_bwd_tile(D, limit);
      if (bwd) {
        EXPECT_LE(fa2_bwd_tile_smem(D, *bwd), limit) << D;
      } else {
        EXPECT_GT(fa2_bwd_tile_smem(D, Fa2BwdTile::kCompact), limit) << D;
      }
    }
  }
}

// The plan's prediction of fa2's backward workspace (core/backend_catalog.cpp, which may not
// include the kernels' headers) is the kernels' own formula, at every head dim.
TEST(Fa2TileChoice, PredictedBackwardWorkspaceIsTheKernelsFormula) {
  const BackendEntry* fa2 = find_backend_entry("fa2");
  ASSERT_NE(fa2, nullptr);
  for (int D = 1; D <= 256; ++D) {
    Case c;
    c.backend = "fa2";
    c.mode = Mode::fwd_bwd;
    c.B = 3, c.H = 5, c.H_kv = 5, c.T_q = 17, c.T_k = 9, c.D = D;
    const int kernel_d = (D + 7) / 8 * 8;  // a D that is not a multiple of 8 runs padded
    EXPECT_EQ(fa2->backward_workspace_bytes(c),
              static_cast<std::int64_t>(fa2_bwd_workspace_bytes(3, 5, 17, kernel_d)))
        << D;
  }
}

}  // namespace
}  // namespace fa2b
