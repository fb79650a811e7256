// SPDX-License-Identifier: Apache-2.0
// A small case of the CPU backends' tests: one sample, no warm-up, every query and key row
// verified (the cases are small enough).
#pragma once

#include <cstdint>
#include <string>

#include "core/case.h"

namespace fa2b::test_cases {

inline Case small_case(const std::string& sweep, const std::string& backend, std::int64_t H,
                       std::int64_t H_kv, std::int64_t T_q, std::int64_t T_k, std::int64_t D,
                       DType dt, bool causal, Layout layout, Mode mode) {
  Case c;
  c.sweep = sweep;
  c.backend = c.role = backend;
  c.B = 2;
  c.H = H;
  c.H_kv = H_kv;
  c.T_q = T_q;
  c.T_k = T_k;
  c.D = D;
  c.dtype = dt;
  c.causal = causal;
  c.layout = layout;
  c.mode = mode;
  c.measure.warmup = 0;
  c.measure.min_samples = 1;
  c.measure.max_samples = 1;
  c.measure.verify_rows = 100000;  // small cases: every query row and every key row
  return c;
}

}  // namespace fa2b::test_cases
