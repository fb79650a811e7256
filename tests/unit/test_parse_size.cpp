// SPDX-License-Identifier: Apache-2.0
// parse_size: the sizes --memory-budget and plan --memory take. Units come from CLI11's
// AsSizeValue table (kB = 1000, KiB = 1024); the number is decimal and required.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>

#include "app/parse_size.h"

namespace fa2b {
namespace {

constexpr std::int64_t kKi = 1024;
constexpr std::int64_t kGi = kKi * kKi * kKi;

TEST(ParseSize, AcceptsTheFormsItAlwaysAccepted) {
  EXPECT_EQ(parse_size("80GiB"), 80 * kGi);
  EXPECT_EQ(parse_size("512MiB"), 512 * kKi * kKi);
  EXPECT_EQ(parse_size("24gib"), 24 * kGi);
  EXPECT_EQ(parse_size("1.5GB"), std::int64_t{1500000000});
  EXPECT_EQ(parse_size("141GB"), std::int64_t{141000000000});
  EXPECT_EQ(parse_size("1000000"), std::int64_t{1000000});
  EXPECT_EQ(parse_size("1e9"), std::int64_t{1000000000});
  EXPECT_EQ(parse_size("24 GiB"), 24 * kGi);
  EXPECT_EQ(parse_size("3k"), std::int64_t{3000});
  EXPECT_EQ(parse_size("3kb"), std::int64_t{3000});
  EXPECT_EQ(parse_size("3KiB"), 3 * kKi);
  EXPECT_EQ(parse_size("2t"), std::int64_t{2000000000000});
  EXPECT_EQ(parse_size("2TiB"), 2 * kGi * kKi);
  EXPECT_EQ(parse_size("100b"), std::int64_t{100});
  EXPECT_EQ(parse_size("0.5KiB"), std::int64_t{512});
}

TEST(ParseSize, AcceptsTheUnitsOfClisSizeTable) {
  // New with CLI::AsSizeValue's table: "ki"-style binary units without the "b", peta and exa,
  // and surrounding whitespace.
  EXPECT_EQ(parse_size("2gi"), 2 * kGi);
  EXPECT_EQ(parse_size("2Mi"), 2 * kKi * kKi);
  EXPECT_EQ(parse_size("1ti"), kGi * kKi);
  EXPECT_EQ(parse_size("3p"), std::int64_t{3000000000000000});
  EXPECT_EQ(parse_size("3PB"), std::int64_t{3000000000000000});
  EXPECT_EQ(parse_size("1PiB"), kGi * kGi / kKi);
  EXPECT_EQ(parse_size("2e"), std::int64_t{2000000000000000000});
  EXPECT_EQ(parse_size("7EiB"), std::int64_t{7} * kGi * kGi);
  EXPECT_EQ(parse_size(" 24GiB "), 24 * kGi);
  // A leading zero is decimal here (CLI11's integer parsing would read "010" as octal 8).
  EXPECT_EQ(parse_size("010GB"), std::int64_t{10000000000});
}

TEST(ParseSize, RejectsMalformedAndOutOfRange) {
  for (const std::string bad :
       {"",     "lots", "GiB",  "kb",    "80 GiBs", "80 G iB", "80GiB!", "1.5.5GB",
        "nan",  "inf",  "-inf", "1e400", "-5GiB",   "0",       "0GiB",   "-1",
        "8EiB", "10e",  "1e19", "5 zb",  "5yb",     "12 3GB"}) {
    EXPECT_EQ(parse_size(bad), std::nullopt) << '"' << bad << '"';
  }
}

TEST(ParseSize, RoundsToWholeBytes) {
  EXPECT_EQ(parse_size("1.4"), std::int64_t{1});
  // Below half a byte rounds to 0, which would read as "no budget": refused.
  EXPECT_EQ(parse_size("0.3"), std::nullopt);
  EXPECT_EQ(parse_size("0.0001KB"), std::nullopt);
}

}  // namespace
}  // namespace fa2b
