// SPDX-License-Identifier: Apache-2.0
// Crafted results for the compare tests: one timed case of a backend on B1-H8-T<T>-D<D>,
// fp16, causal, with p10/p90 at median -/+ spread.
#pragma once

#include <cstdint>
#include <string>

#include "core/result.h"

namespace fa2b {

inline CaseResult crafted_case(const std::string& backend, std::int64_t T, std::int64_t D,
                               double median, double spread, Status status,
                               std::int64_t peak_bytes) {
  CaseResult r;
  r.c.sweep = "s";
  r.c.backend = backend;
  r.c.role = backend;
  r.c.B = 1;
  r.c.H = 8;
  r.c.H_kv = 8;
  r.c.T_q = T;
  r.c.T_k = T;
  r.c.D = D;
  r.c.causal = true;
  r.target = "cuda";
  r.status = status;
  r.flops = 4.0 * 8 * T * T * D / 2;
  r.memory.peak_bytes = peak_bytes;
  if (status == Status::ok) {
    r.time.median = median;
    r.time.p10 = median * (1 - spread);
    r.time.p90 = median * (1 + spread);
    r.time.n = 10;
    r.tflops = r.flops / (median * 1e-3) / 1e12;
  }
  return r;
}

}  // namespace fa2b
