// SPDX-License-Identifier: Apache-2.0
// fp16 / bf16 storage conversions (kernels/common/numeric.h): round trips, round-to-nearest-even
// ties, subnormals, overflow, inf and NaN.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "common/numeric.h"

namespace fa2b {
namespace {

bool is_nan16(std::uint16_t h) {
  return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0;
}
bool is_nan_bf16(std::uint16_t h) {
  return (h & 0x7f80u) == 0x7f80u && (h & 0x7fu) != 0;
}

TEST(NumericFp16, ExhaustiveRoundTripIsIdentity) {
  for (std::uint32_t u = 0; u < 0x10000u; ++u) {
    const auto h = static_cast<std::uint16_t>(u);
    const float f = fp16_to_float(h);
    const std::uint16_t back = float_to_fp16(f);
    if (is_nan16(h)) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << u;
      ASSERT_TRUE(is_nan16(back)) << std::hex << u;
      ASSERT_EQ(back & 0x8000u, h & 0x8000u) << std::hex << u;
    } else {
      ASSERT_EQ(back, h) << std::hex << u;
    }
  }
}

TEST(NumericFp16, KnownValues) {
  EXPECT_EQ(float_to_fp16(0.0f), 0x0000);
  EXPECT_EQ(float_to_fp16(-0.0f), 0x8000);
  EXPECT_EQ(float_to_fp16(1.0f), 0x3c00);
  EXPECT_EQ(float_to_fp16(-2.0f), 0xc000);
  EXPECT_EQ(float_to_fp16(65504.0f), 0x7bff);
  EXPECT_EQ(float_to_fp16(0.333333343f), 0x3555);
  EXPECT_EQ(fp16_to_float(0x3555), 0.333251953125f);
  EXPECT_EQ(fp16_to_float(0x7bff), 65504.0f);
}

TEST(NumericFp16, RoundsToNearestEven) {
  const float ulp1 = std::ldexp(1.0f, -10);  // fp16 spacing in [1, 2)
  // Exactly halfway: ties go to the even mantissa.
  EXPECT_EQ(float_to_fp16(1.0f + 0.5f * ulp1), 0x3c00);     // 1.0 (even) wins
  EXPECT_EQ(float_to_fp16(1.0f + 1.5f * ulp1), 0x3c02);     // up to even
  EXPECT_EQ(float_to_fp16(-(1.0f + 1.5f * ulp1)), 0xbc02);  // sign symmetric
  // Just off halfway: nearest.
  EXPECT_EQ(float_to_fp16(std::nextafter(1.0f + 0.5f * ulp1, 2.0f)), 0x3c01);
  EXPECT_EQ(float_to_fp16(std::nextafter(1.0f + 1.5f * ulp1, 0.0f)), 0x3c01);
  // Mantissa carry into the exponent.
  EXPECT_EQ(float_to_fp16(2.0f - 0.25f * ulp1), 0x4000);
}

TEST(NumericFp16, OverflowAndSpecials) {
  EXPECT_EQ(float_to_fp16(65519.0f), 0x7bff);  // below the halfway point to 65536
  EXPECT_EQ(float_to_fp16(65520.0f), 0x7c00);  // halfway ties to even = inf
  EXPECT_EQ(float_to_fp16(1e10f), 0x7c00);
  EXPECT_EQ(float_to_fp16(-1e10f), 0xfc00);
  EXPECT_EQ(float_to_fp16(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(float_to_fp16(-std::numeric_limits<float>::infinity()), 0xfc00);
  EXPECT_TRUE(is_nan16(float_to_fp16(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_TRUE(is_nan16(float_to_fp16(bits_float(0x7f800001u))));  // signalling NaN stays NaN
  EXPECT_TRUE(std::isinf(fp16_to_float(0x7c00)));
  EXPECT_TRUE(std::isnan(fp16_to_float(0x7e00)));
}

TEST(NumericFp16, Subnormals) {
  const float min_sub = std::ldexp(1.0f, -24);
  EXPECT_EQ(fp16_to_float(0x0001), min_sub);
  EXPECT_EQ(fp16_to_float(0x03ff), 1023.0f * min_sub);
  EXPECT_EQ(fp16_to_float(0x8001), -min_sub);
  EXPECT_EQ(float_to_fp16(min_sub), 0x0001);
  EXPECT_EQ(float_to_fp16(3.0f * min_sub), 0x0003);
  // Halfway cases in the subnormal range tie to even.
  EXPECT_EQ(float_to_fp16(0.5f * min_sub), 0x0000);  // tie between 0 and 1 -> 0
  EXPECT_EQ(float_to_fp16(std::nextafter(0.5f * min_sub, 1.0f)), 0x0001);
  EXPECT_EQ(float_to_fp16(1.5f * min_sub), 0x0002);  // tie between 1 and 2 -> 2
  EXPECT_EQ(float_to_fp16(2.5f * min_sub), 0x0002);  // tie between 2 and 3 -> 2
  EXPECT_EQ(float_to_fp16(-2.5f * min_sub), 0x8002);
  EXPECT_EQ(float_to_fp16(1e-10f), 0x0000);
  EXPECT_EQ(float_to_fp16(-1e-10f), 0x8000);
  // Largest subnormal rounding up into the smallest normal.
  EXPECT_EQ(float_to_fp16(1023.75f * min_sub), 0x0400);
  EXPECT_EQ(fp16_to_float(0x0400), std::ldexp(1.0f, -14));
}

TEST(NumericBf16, RoundTripOfEveryPattern) {
  for (std::uint32_t u = 0; u < 0x10000u; ++u) {
    const auto h = static_cast<std::uint16_t>(u);
    const float f = bf16_to_float(h);
    const std::uint16_t back = float_to_bf16(f);
    if (is_nan_bf16(h)) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << u;
      ASSERT_TRUE(is_nan_bf16(back)) << std::hex << u;
    } else {
      ASSERT_EQ(back, h) << std::hex << u;
    }
  }
}

TEST(NumericBf16, RoundsToNearestEven) {
  EXPECT_EQ(float_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(float_to_bf16(bits_float(0x3f808000u)), 0x3f80);  // tie -> even (down)
  EXPECT_EQ(float_to_bf16(bits_float(0x3f818000u)), 0x3f82);  // tie -> even (up)
  EXPECT_EQ(float_to_bf16(bits_float(0x3f808001u)), 0x3f81);  // above the tie
  EXPECT_EQ(float_to_bf16(bits_float(0x3f807fffu)), 0x3f80);  // below the tie
  EXPECT_EQ(float_to_bf16(bits_float(0xbf818000u)), 0xbf82);  // sign symmetric
  // Subnormals round the same way (no special range in bf16).
  EXPECT_EQ(float_to_bf16(bits_float(0x00018000u)), 0x0002);
  EXPECT_EQ(float_to_bf16(bits_float(0x00008000u)), 0x0000);
}

TEST(NumericBf16, OverflowAndSpecials) {
  EXPECT_EQ(float_to_bf16(std::numeric_limits<float>::max()), 0x7f80);  // rounds up to inf
  EXPECT_EQ(float_to_bf16(bits_float(0x7f7f7fffu)), 0x7f7f);            // stays finite
  EXPECT_EQ(float_to_bf16(std::numeric_limits<float>::infinity()), 0x7f80);
  EXPECT_EQ(float_to_bf16(-std::numeric_limits<float>::infinity()), 0xff80);
  EXPECT_EQ(float_to_bf16(-0.0f), 0x8000);
  EXPECT_TRUE(is_nan_bf16(float_to_bf16(std::numeric_limits<float>::quiet_NaN())));
  // A NaN whose payload lives only in the low 16 bits must not truncate to inf.
  EXPECT_TRUE(is_nan_bf16(float_to_bf16(bits_float(0x7f800001u))));
  EXPECT_TRUE(is_nan_bf16(float_to_bf16(bits_float(0xff800001u))));
}

TEST(NumericBf16, MatchesFloatTruncationPlusRounding) {
  // Every float whose low 16 bits are below the halfway point truncates; spot-check a sweep.
  for (std::uint32_t hi = 0; hi < 0x7f80u; hi += 0x13u) {
    const std::uint32_t u = (hi << 16) | 0x1234u;
    EXPECT_EQ(float_to_bf16(bits_float(u)), hi);
    EXPECT_EQ(float_to_bf16(bits_float(u | 0x8000u)), hi + 1);  // above halfway: up
  }
}

}  // namespace
}  // namespace fa2b
