// SPDX-License-Identifier: Apache-2.0
// fp16 / bf16 storage conversions with round-to-nearest-even, identical on host and device,
// so the CPU target stores exactly what a GPU would. Pure integer bit manipulation.
#pragma once

#include <cstdint>
#include <cstring>

#include "core/host_device.h"

namespace fa2b {

FA2B_HD std::uint32_t float_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
FA2B_HD float bits_float(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

FA2B_HD std::uint16_t float_to_bf16(float f) {
  std::uint32_t u = float_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((u >> 16) | 0x40u);  // NaN
  u += 0x7fffu + ((u >> 16) & 1u);  // round to nearest even; overflow rounds to inf correctly
  return static_cast<std::uint16_t>(u >> 16);
}
FA2B_HD float bf16_to_float(std::uint16_t h) {
  return bits_float(static_cast<std::uint32_t>(h) << 16);
}

FA2B_HD std::uint16_t float_to_fp16(float f) {
  const std::uint32_t u = float_bits(f);
  const std::uint32_t sign = (u >> 16) & 0x8000u;
  const std::uint32_t absu = u & 0x7fffffffu;
  if (absu > 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7e00u);   // NaN
  if (absu >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // rounds to inf
  if (absu < 0x38800000u) {  // subnormal or zero in fp16
    if (absu < 0x33000000u)
      return static_cast<std::uint16_t>(sign);  // below half the min subnormal
    const std::uint32_t exp = absu >> 23;
    const std::uint32_t mant = (absu & 0x7fffffu) | 0x800000u;
    const std::uint32_t shift = 126u - exp;  // 14 + (112 - exp) ... aligns to 2^-24 units
    const std::uint32_t q = mant >> shift;
    const std::uint32_t rem = mant & ((1u << shift) - 1u);
    const std::uint32_t half = 1u << (shift - 1u);
    const std::uint32_t r = q + ((rem > half || (rem == half && (q & 1u))) ? 1u : 0u);
    return static_cast<std::uint16_t>(sign | r);
  }
  // Normal: rebias exponent (127 -> 15), round 23-bit mantissa to 10 bits, nearest even.
  std::uint32_t v = absu - 0x38000000u;  // exponent - 112
  v += 0xfffu + ((v >> 13) & 1u);
  return static_cast<std::uint16_t>(sign | (v >> 13));
}
FA2B_HD float fp16_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1fu;
  std::uint32_t mant = h & 0x3ffu;
  if (exp == 0x1fu) return bits_float(sign | 0x7f800000u | (mant << 13));  // inf / NaN
  if (exp == 0) {
    if (mant == 0) return bits_float(sign);
    // Subnormal: value = mant * 2^-24, exact in float.
    const float mag = static_cast<float>(mant) * 5.9604644775390625e-8f;
    return sign ? -mag : mag;
  }
  return bits_float(sign | ((exp + 112u) << 23) | (mant << 13));
}

}  // namespace fa2b
