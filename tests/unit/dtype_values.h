// SPDX-License-Identifier: Apache-2.0
// Element idx of a host byte buffer holding fp32, fp16 or bf16 values, written and read as
// floats: how the CPU-target tests fill and read the tensors they hand a backend.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "common/numeric.h"
#include "core/case.h"

namespace fa2b::test_values {

inline void put(DType dt, std::vector<std::uint8_t>& buf, std::int64_t idx, float x) {
  if (dt == DType::fp32) {
    std::memcpy(buf.data() + idx * 4, &x, 4);
    return;
  }
  const std::uint16_t bits = dt == DType::fp16 ? float_to_fp16(x) : float_to_bf16(x);
  std::memcpy(buf.data() + idx * 2, &bits, 2);
}

inline float get(DType dt, const std::vector<std::uint8_t>& buf, std::int64_t idx) {
  if (dt == DType::fp32) {
    float x;
    std::memcpy(&x, buf.data() + idx * 4, 4);
    return x;
  }
  std::uint16_t bits;
  std::memcpy(&bits, buf.data() + idx * 2, 2);
  return dt == DType::fp16 ? fp16_to_float(bits) : bf16_to_float(bits);
}

}  // namespace fa2b::test_values
