// SPDX-License-Identifier: Apache-2.0
// `sweep --shard I/N`: a deterministic slice of the case list (index % N == I).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/case.h"

namespace fa2b {

struct Shard {
  int index = 0;  // 0-based
  int count = 1;
};

// "I/N" with 0 <= I < N; nullopt when malformed.
std::optional<Shard> parse_shard(const std::string& text);
std::string to_string(const Shard& s);  // "I/N"
// The cases whose position in `cases` is index % count == index.
std::vector<Case> shard_cases(const std::vector<Case>& cases, const Shard& s);

}  // namespace fa2b
