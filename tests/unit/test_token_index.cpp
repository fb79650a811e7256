// SPDX-License-Identifier: Apache-2.0
// The token index of the CUDA step's embedding backward (model/token_index.h), on the host.
#include <gtest/gtest.h>

#include <vector>

#include "model/token_index.h"

namespace fa2b {
namespace {

TEST(ModelTokenIndex, GroupsPositionsByTokenInPositionOrder) {
  const std::vector<std::int32_t> tokens = {5, 2, 5, 0, 2, 5};
  const model::TokenIndex idx = model::build_token_index(tokens.data(), 6, 7);
  EXPECT_EQ(idx.order, (std::vector<std::int32_t>{3, 1, 4, 0, 2, 5}));
  EXPECT_EQ(idx.seg_start, (std::vector<std::int32_t>{0, 1, 3, 6}));
  EXPECT_EQ(idx.seg_token, (std::vector<std::int32_t>{0, 2, 5}));
  EXPECT_EQ(idx.segments(), 3);
}

TEST(ModelTokenIndex, RefusesATokenOutsideTheVocab) {
  const std::vector<std::int32_t> tokens = {0, 7};
  EXPECT_THROW(model::build_token_index(tokens.data(), 2, 7), std::out_of_range);
}

}  // namespace
}  // namespace fa2b
