// SPDX-License-Identifier: Apache-2.0
// What the GPU runner tests share: an sm_90 target for support questions (no device needed),
// and the accuracy a case run through the runner must reach against float64.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>

#include "core/result.h"
#include "runtime/target_info.h"

namespace fa2b {

// An sm_90 device of `memory_gib` GiB with sm_90's opt-in shared memory per block.
inline TargetInfo sm90_target(std::int64_t memory_gib) {
  TargetInfo t;
  t.cuda = true;
  t.cc_major = 9;
  t.cc_minor = 0;
  t.memory_bytes = memory_gib << 30;
  t.smem_per_block_optin = 227 * 1024;
  return t;
}

// The output within `max_abs` and `rel_l2` of float64 and finite; in a training mode the three
// gradients checked, finite and within `grad_rel_l2`.
inline void expect_matches_reference(const CaseResult& r, double max_abs, double rel_l2,
                                     double grad_rel_l2) {
  EXPECT_EQ(r.accuracy.nonfinite, 0);
  EXPECT_LE(r.accuracy.max_abs_err, max_abs);
  EXPECT_LE(r.accuracy.rel_l2_err, rel_l2);
  if (!runs_backward(r.c.mode)) return;
  ASSERT_TRUE(r.accuracy.grads_checked);
  EXPECT_EQ(r.accuracy.grad_nonfinite, 0);
  for (Grad g : kGrads) EXPECT_LE(r.accuracy.of(g).rel_l2_err, grad_rel_l2) << to_string(g);
}

}  // namespace fa2b
