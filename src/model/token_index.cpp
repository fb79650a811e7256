// SPDX-License-Identifier: Apache-2.0
#include "model/token_index.h"

#include <stdexcept>

namespace fa2b::model {

TokenIndex build_token_index(const std::int32_t* tokens, std::int64_t n, std::int64_t vocab) {
  std::vector<std::int64_t> count(static_cast<std::size_t>(vocab) + 1, 0);
  for (std::int64_t r = 0; r < n; ++r) {
    if (tokens[r] < 0 || tokens[r] >= vocab) throw std::out_of_range("token outside the vocab");
    ++count[static_cast<std::size_t>(tokens[r]) + 1];
  }
  for (std::size_t v = 1; v < count.size(); ++v) count[v] += count[v - 1];  // start of each token
  TokenIndex idx;
  idx.order.resize(static_cast<std::size_t>(n));
  std::vector<std::int64_t> next(count.begin(), count.end() - 1);
  for (std::int64_t r = 0; r < n; ++r)  // stable: positions in increasing order per token
    idx.order[static_cast<std::size_t>(next[static_cast<std::size_t>(tokens[r])]++)] =
        static_cast<std::int32_t>(r);
  for (std::int64_t v = 0; v < vocab; ++v) {
    const auto vi = static_cast<std::size_t>(v);
    if (count[vi + 1] == count[vi]) continue;
    idx.seg_start.push_back(static_cast<std::int32_t>(count[vi]));
    idx.seg_token.push_back(static_cast<std::int32_t>(v));
  }
  idx.seg_start.push_back(static_cast<std::int32_t>(n));
  return idx;
}

}  // namespace fa2b::model
