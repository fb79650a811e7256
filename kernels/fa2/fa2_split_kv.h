// SPDX-License-Identifier: Apache-2.0
// fa2's decode plan: the split-KV ("flash-decoding") count and workspace and the GQA packing
// of its forward, handed to the kernel beside the AttnParams rather than inside them:
// AttnParams is the one parameter block of every backend, CPU ones included, and only fa2's
// forward has this workspace, whose size depends on the device (its multiprocessors) and which
// the backend allocates in prepare(), where the plan is made (fa2_fwd_decode_plan, fa2_fwd.h).
// Plain C++ so that host code compiled by g++ and device code compiled by nvcc see the same
// struct.
//
// A paged KV cache (AttnParams::block_table) always takes this path, whatever the shape: only
// the split and packed kernels read pages. Unpacked it runs the split kernel with n_splits = 1,
// which then needs the workspace too (fa2_plan_uses_workspace, fa2_split_choice.h).
#pragma once

namespace fa2b {

// The most slices a forward splits the key axis into (fa2_split_choice.h caps every count at
// it; the combine kernel keeps one weight per slice in shared memory).
constexpr int kFa2MaxSplits = 128;

struct Fa2SplitKv {
  // Slices of the key axis; 1 runs the forward without a split (no workspace read or written).
  int n_splits = 1;
  // Each split's output rows normalised by its own softmax sum, float32
  // [n_splits, B, H, T_q, D], and the natural-log log-sum-exp of its scaled scores, float32
  // [n_splits, B, H, T_q] (-inf for a row that sees no key of the split). The combine kernel
  // weighs the splits by exp(lse_split - lse_row) and writes O and LSE.
  float* o_partial = nullptr;
  float* lse_partial = nullptr;
  // GQA packing: the query heads of one KV group share a CTA (fa2_fwd_kernel.cuh, kPacked).
  bool pack_gqa = false;
};

}  // namespace fa2b
