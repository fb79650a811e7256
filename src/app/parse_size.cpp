// SPDX-License-Identifier: Apache-2.0
// Sizes for --memory-budget and plan --memory: a decimal number and a unit whose factor is
// CLI11's size table (CLI::AsSizeValue with kB = 1000: b; k, kb, m, mb ... e, eb powers of 1000;
// ki, kib ... ei, eib powers of 1024; case-insensitive). The number is ours, not CLI11's:
// AsSizeValue takes only integers (so "1.5GiB" and "1e9" would stop working), reads a
// leading 0 as octal ("010GB" = 8 GB) and takes a bare unit ("GiB") as one of it; here the
// number is std::stod's (fractions and exponents allowed) and required. The result must be
// finite, at most 9e18 bytes (int64) and at least one byte once rounded to whole bytes.
#include "app/parse_size.h"

#include <CLI/CLI.hpp>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string>

namespace fa2b {
namespace {

// The factor of a size unit (empty: bytes), from CLI11's AsSizeValue table; nullopt when the
// unit is not in it.
std::optional<double> size_unit_factor(const std::string& unit) {
  if (unit.empty()) return 1.0;
  for (char ch : unit) {
    if (!std::isalpha(static_cast<unsigned char>(ch))) return std::nullopt;
  }
  static const CLI::AsSizeValue table(/*kb_is_1000=*/true);
  std::string probe = "1" + unit;  // AsSizeValue rewrites "1<unit>" to the factor in bytes
  try {
    if (!table(probe).empty()) return std::nullopt;
  } catch (const CLI::ValidationError&) {
    return std::nullopt;
  }
  char* end = nullptr;
  const unsigned long long factor = std::strtoull(probe.c_str(), &end, 10);
  if (probe.empty() || end != probe.c_str() + probe.size() || factor == 0) return std::nullopt;
  return static_cast<double>(factor);  // powers of 1000 and 1024 up to 2^60: exact in a double
}

}  // namespace

std::optional<std::int64_t> parse_size(const std::string& text) {
  std::size_t pos = 0;
  double value = 0;
  try {
    value = std::stod(text, &pos);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  std::string unit = text.substr(pos);
  while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit.front()))) unit.erase(0, 1);
  while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit.back()))) unit.pop_back();
  for (char& ch : unit) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  const std::optional<double> mul = size_unit_factor(unit);
  if (!mul) return std::nullopt;
  const double bytes = value * *mul;
  if (!(bytes > 0) || !std::isfinite(bytes) || bytes > 9.0e18) return std::nullopt;
  const auto whole = static_cast<std::int64_t>(std::llround(bytes));
  if (whole < 1) return std::nullopt;  // "0.3" would round to 0, i.e. no budget at all
  return whole;
}

}  // namespace fa2b
