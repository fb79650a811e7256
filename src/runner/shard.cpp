// SPDX-License-Identifier: Apache-2.0
#include "runner/shard.h"

#include <cctype>
#include <limits>

namespace fa2b {
namespace {

std::optional<int> parse_int(const std::string& s) {
  if (s.empty() || s.size() > 9) return std::nullopt;
  int v = 0;
  for (char ch : s) {
    if (!std::isdigit(static_cast<unsigned char>(ch))) return std::nullopt;
    v = v * 10 + (ch - '0');
  }
  return v;
}

}  // namespace

std::optional<Shard> parse_shard(const std::string& text) {
  const std::size_t slash = text.find('/');
  if (slash == std::string::npos) return std::nullopt;
  const auto i = parse_int(text.substr(0, slash));
  const auto n = parse_int(text.substr(slash + 1));
  if (!i || !n || *n < 1 || *i >= *n) return std::nullopt;
  return Shard{*i, *n};
}

std::string to_string(const Shard& s) {
  return std::to_string(s.index) + "/" + std::to_string(s.count);
}

std::vector<Case> shard_cases(const std::vector<Case>& cases, const Shard& s) {
  std::vector<Case> out;
  for (std::size_t i = 0; i < cases.size(); ++i)
    if (static_cast<int>(i % static_cast<std::size_t>(s.count)) == s.index) out.push_back(cases[i]);
  return out;
}

}  // namespace fa2b
