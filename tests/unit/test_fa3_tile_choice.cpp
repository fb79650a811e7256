// SPDX-License-Identifier: Apache-2.0
// fa3's forward tile per head dim, mask and key-length class, without a GPU: the class
// boundaries, the shortest keys taking the short-key tile except where the table lists its own
// (causal D = 256), and the long keys their own tiles.
#include <gtest/gtest.h>

#include <type_traits>

#include "fa3/fa3_traits.h"

namespace fa2b {
namespace {

TEST(Fa3TileChoice, KeyLengthClasses) {
  EXPECT_EQ(fa3_keys_of(1), Fa3Keys::kShortest);
  EXPECT_EQ(fa3_keys_of(kFa3ShortestKeys), Fa3Keys::kShortest);
  EXPECT_EQ(fa3_keys_of(kFa3ShortestKeys + 1), Fa3Keys::kShort);
  EXPECT_EQ(fa3_keys_of(kFa3ShortKeys), Fa3Keys::kShort);
  EXPECT_EQ(fa3_keys_of(kFa3ShortKeys + 1), Fa3Keys::kLong);
}

template <int kD, bool kCausal, Fa3Keys kKeys>
constexpr int block_n = Fa3FwdTraits<kD, kCausal, kKeys>::kBlockN;

template <int kD, bool kCausal>
constexpr bool shortest_is_short = std::is_same_v<Fa3FwdTraits<kD, kCausal, Fa3Keys::kShortest>,
                                                  Fa3FwdTraits<kD, kCausal, Fa3Keys::kShort>>;

TEST(Fa3TileChoice, ShortestKeysTakeTheShortKeyTileUnlessListed) {
  EXPECT_TRUE((shortest_is_short<64, false>));
  EXPECT_TRUE((shortest_is_short<64, true>));
  EXPECT_TRUE((shortest_is_short<128, false>));
  EXPECT_TRUE((shortest_is_short<128, true>));
  EXPECT_TRUE((shortest_is_short<256, false>));
  EXPECT_FALSE((shortest_is_short<256, true>));
  EXPECT_EQ((block_n<256, true, Fa3Keys::kShortest>), 64);
  EXPECT_EQ((block_n<256, true, Fa3Keys::kShort>), 80);
}

TEST(Fa3TileChoice, LongKeysTakeTheirOwnTiles) {
  EXPECT_EQ((block_n<128, false, Fa3Keys::kLong>), 176);
  EXPECT_EQ((block_n<128, false, Fa3Keys::kShort>), 128);
  EXPECT_FALSE((std::is_same_v<Fa3FwdTraits<256, false, Fa3Keys::kLong>,
                               Fa3FwdTraits<256, false, Fa3Keys::kShort>>));
}

}  // namespace
}  // namespace fa2b
