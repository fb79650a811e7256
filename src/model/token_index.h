// SPDX-License-Identifier: Apache-2.0
// The batch's positions grouped by token, for the CUDA step's deterministic embedding backward
// (one float32 sum per distinct token over its positions, in position order, no atomics). Built
// on the host once per batch with a counting sort; the step uploads it beside the tokens.
#pragma once

#include <cstdint>
#include <vector>

namespace fa2b::model {

struct TokenIndex {
  std::vector<std::int32_t> order;      // positions sorted by (token, position): n
  std::vector<std::int32_t> seg_start;  // segment s is order[seg_start[s] .. seg_start[s + 1])
  std::vector<std::int32_t> seg_token;  // the token of segment s
  std::int64_t segments() const { return static_cast<std::int64_t>(seg_token.size()); }
};

// Tokens must lie in [0, vocab).
TokenIndex build_token_index(const std::int32_t* tokens, std::int64_t n, std::int64_t vocab);

}  // namespace fa2b::model
