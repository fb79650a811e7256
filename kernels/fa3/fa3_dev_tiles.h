// SPDX-License-Identifier: Apache-2.0
// Tuning candidates of the fa3 forward (`fa2bench tune --backend fa3`, docs/tuning.md): per
// head dim, the list of tiles variants 1, 2, ... run (variant 0 is the shipped dispatch,
// Fa3FwdTraits, which picks its tile by mask and key-length class). Each candidate runs with either mask.
// The names tune prints are derived from the tiles. Instantiated only in builds with
// -DFA2BENCH_DEV_KERNELS=ON (kernels/fa3/inst/dev/, written by inst/gen_units.py).
#pragma once

#include <string>

#include "fa3/fa3_traits.h"

namespace fa2b {

template <typename... Tiles>
struct Fa3TileList {
  static constexpr int kCount = sizeof...(Tiles);
};

// Calls f(Tile{}) for the tile at `index` of the list; false when the index is out of range.
template <typename F, typename... Tiles>
bool with_fa3_tile_at(int index, Fa3TileList<Tiles...>, F&& f) {
  int i = 0;
  return ((i++ == index ? (f(Tiles{}), true) : false) || ...);
}

template <int kD>
struct Fa3DevTiles;
// clang-format off
//                                         D    Bn   stages consumers turns  staged epilogue, persistent, Q buffers, TMA store
template <> struct Fa3DevTiles<64> {
  using List = Fa3TileList<Fa3FwdTile<64,  128, 2,     2>,
                           Fa3FwdTile<64,  128, 3,     3>,
                           Fa3FwdTile<64,  128, 2,     3,        false>,
                           Fa3FwdTile<64,  64,  2,     3>,
                           Fa3FwdTile<64,  128, 2,     3>,
                           Fa3FwdTile<64,  128, 2,     3,        true,  true,  true>,
                           Fa3FwdTile<64,  128, 2,     3,        true,  true,  true,  2>,
                           Fa3FwdTile<64,  128, 2,     2,        true,  true,  true,  2>,
                           Fa3FwdTile<64,  64,  2,     3,        true,  true,  true,  2>,
                           Fa3FwdTile<64,  128, 2,     3,        true,  true,  true,  2, true>,
                           Fa3FwdTile<64,  128, 2,     2,        true,  true,  true,  2, true>>;
};
template <> struct Fa3DevTiles<128> {
  using List = Fa3TileList<Fa3FwdTile<128, 128, 2,     2>,
                           Fa3FwdTile<128, 176, 2,     2>,
                           Fa3FwdTile<128, 192, 2,     2>,
                           Fa3FwdTile<128, 128, 3,     2>,
                           Fa3FwdTile<128, 128, 2,     2,        false>,
                           Fa3FwdTile<128, 176, 2,     2,        false>,
                           Fa3FwdTile<128, 128, 2,     2,        true,  true>,
                           Fa3FwdTile<128, 176, 2,     2,        true,  true>,
                           Fa3FwdTile<128, 128, 2,     2,        true,  true,  true>,
                           Fa3FwdTile<128, 128, 2,     2,        true,  true,  true,  2>,
                           Fa3FwdTile<128, 176, 2,     2,        true,  true,  true>,
                           Fa3FwdTile<128, 64,  2,     2,        true,  true,  true,  2>,
                           Fa3FwdTile<128, 64,  3,     2,        true,  true,  true,  2>,
                           Fa3FwdTile<128, 128, 3,     2,        true,  true,  true>,
                           Fa3FwdTile<128, 128, 2,     2,        true,  true,  true,  2, true>,
                           Fa3FwdTile<128, 176, 2,     2,        true,  true,  false, 1, true>>;
};
template <> struct Fa3DevTiles<256> {
  using List = Fa3TileList<Fa3FwdTile<256, 64,  2,     2>,
                           Fa3FwdTile<256, 64,  2,     2,        false>,
                           Fa3FwdTile<256, 80,  2,     2>,
                           Fa3FwdTile<256, 32,  3,     2>,
                           Fa3FwdTile<256, 64,  2,     2,        true,  true>,
                           Fa3FwdTile<256, 80,  2,     2,        true,  true>,
                           Fa3FwdTile<256, 64,  2,     2,        true,  true,  true>,
                           Fa3FwdTile<256, 32,  2,     2,        true,  true,  true,  2>,
                           Fa3FwdTile<256, 32,  3,     2,        true,  true,  true,  2>,
                           Fa3FwdTile<256, 80,  2,     2,        true,  true,  false, 1, true>,
                           Fa3FwdTile<256, 64,  2,     2,        true,  true,  false, 1, true>>;
};
// clang-format on

// "128x176 s2 c2 turns": query rows x key columns, K/V stages, consumer warpgroups, whether
// they take turns; " staged" when O leaves through shared memory; " persistent q2" for a
// persistent grid with two Q buffers; " tma-store" when the copy engine stores the staged O.
template <typename Tile>
std::string fa3_tile_name() {
  return std::to_string(Tile::kBlockM) + "x" + std::to_string(Tile::kBlockN) + " s" +
         std::to_string(Tile::kStages) + " c" + std::to_string(Tile::kConsumers) +
         (Tile::kTakeTurns ? " turns" : " free") + (Tile::kStagedEpilogue ? " staged" : "") +
         (Tile::kPersistent ? " persistent q" + std::to_string(Tile::kQBuffers) : "") +
         (Tile::kTmaStore ? " tma-store" : "");
}

}  // namespace fa2b
