// SPDX-License-Identifier: Apache-2.0
// A small case of the CPU backends' tests (one sample, no warm-up, every query and key row
// verified: the cases are small enough) and the error bounds those tests hold them to.
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

// Max-abs bound on O (relative to O(1) outputs) per dtype: a few storage ulps of the output
// plus the rounding of P to the input dtype.
inline double output_tolerance(DType dt) {
  switch (dt) {
    case DType::fp32:
      return 1e-5;
    case DType::fp16:
      return 2e-3;
    case DType::bf16:
      return 2e-2;
  }
  return 0;
}

// Relative L2 bound per gradient and dtype: P and dS enter the products rounded to the input
// dtype and the gradients are stored in it.
inline double gradient_rel_tolerance(DType dt) {
  switch (dt) {
    case DType::fp32:
      return 1e-5;
    case DType::fp16:
      return 5e-3;
    case DType::bf16:
      return 4e-2;
  }
  return 0;
}

}  // namespace fa2b::test_cases
