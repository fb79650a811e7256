// SPDX-License-Identifier: Apache-2.0
// The case the GPU runner tests hand to run_case: a causal bf16 D = 128 case of `backend` with
// the given batch, heads and lengths, measured briefly (one warm-up, 3 to 5 samples).
#pragma once

#include <cstdint>
#include <string>

#include "core/case.h"

namespace fa2b {

inline Case gpu_runner_case(const std::string& backend, std::int64_t B, std::int64_t H,
                            std::int64_t H_kv, std::int64_t T_q, std::int64_t T_k) {
  Case c;
  c.sweep = "gpu-test";
  c.backend = c.role = backend;
  c.B = B;
  c.H = H;
  c.H_kv = H_kv;
  c.T_q = T_q;
  c.T_k = T_k;
  c.D = 128;
  c.dtype = DType::bf16;
  c.causal = true;
  c.measure.warmup = 1;
  c.measure.min_samples = 3;
  c.measure.max_samples = 5;
  return c;
}

}  // namespace fa2b
