// SPDX-License-Identifier: Apache-2.0
// Deterministic input values as a pure function of (seed, tensor, logical index), identical on
// host and device. The device fills Q, K, V with it; the float64 reference regenerates any
// element it needs instead of copying tensors back. Only integer ops and exactly rounded float
// ops are used, so host and device agree bit for bit.
//
// "normal" is Irwin-Hall(4) rescaled to mean 0, variance 1 (bounded by +-3.46): close enough to
// a Gaussian for attention inputs and exactly reproducible everywhere.
#pragma once

#include <cstdint>

#include "common/numeric.h"
#include "core/host_device.h"

namespace fa2b {

// d_o: the incoming gradient dL/dO of the training modes, laid out like Q.
enum class InputTensor : std::uint32_t { q = 1, k = 2, v = 3, d_o = 4 };
enum class KernelInputDist : int { normal = 0, uniform = 1, large = 2, nan = 3 };

FA2B_HD std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Uniform in [0, 1) with 24 random bits (exactly representable).
FA2B_HD float unit_uniform(std::uint32_t bits24) {
  return static_cast<float>(bits24) * (1.0f / 16777216.0f);
}

// `index` is the logical element index in [B, H, T, D] order (layout-independent).
FA2B_HD float input_value(std::uint64_t seed, InputTensor tensor, std::uint64_t index,
                          KernelInputDist dist) {
  const std::uint64_t h1 =
      splitmix64(seed * 0x100000001b3ull + (static_cast<std::uint64_t>(tensor) << 56) + index);
  const std::uint64_t h2 = splitmix64(h1);
  if (dist == KernelInputDist::uniform) {
    return 2.0f * unit_uniform(static_cast<std::uint32_t>(h1 >> 40)) - 1.0f;
  }
  const float s = unit_uniform(static_cast<std::uint32_t>(h1 >> 40)) +
                  unit_uniform(static_cast<std::uint32_t>(h1 & 0xffffffu)) +
                  unit_uniform(static_cast<std::uint32_t>(h2 >> 40)) +
                  unit_uniform(static_cast<std::uint32_t>(h2 & 0xffffffu));
  const float normal = (s - 2.0f) * 1.7320508075688772f;  // sqrt(12 / 4)
  if (dist == KernelInputDist::large) return 30.0f * normal;
  if (dist == KernelInputDist::nan) {
    // One element in 4096 of Q and K is NaN; V and dO stay finite.
    const bool qk = tensor == InputTensor::q || tensor == InputTensor::k;
    const bool poison = qk && ((h2 >> 20) & 0xfffu) == 0;
    if (poison) return bits_float(0x7fc00000u);
  }
  return normal;
}

}  // namespace fa2b
