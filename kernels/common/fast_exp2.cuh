// SPDX-License-Identifier: Apache-2.0
// exp2 as the kernels' softmax needs it: one ex2.approx instruction, without fast-math for the
// whole unit. Every family's softmax and backward recompute of P use it (fa2, fa3).
#pragma once

namespace fa2b {

// ex2.approx is what exp2f becomes under fast-math; we want it without fast-math elsewhere.
// It maps -inf to +0, which the masking relies on.
__device__ __forceinline__ float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

}  // namespace fa2b
