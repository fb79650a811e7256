// SPDX-License-Identifier: Apache-2.0
// Sizes given on the command line (--memory-budget, plan --memory); parse_size.cpp says which.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace fa2b {

// "80GiB", "512MiB", "1.5GB", "1000000", "2 ti" → bytes (units: CLI::AsSizeValue's table with
// kB = 1000, KiB = 1024; see parse_size.cpp); nullopt when malformed, not positive or over 9e18.
std::optional<std::int64_t> parse_size(const std::string& text);

}  // namespace fa2b
