// SPDX-License-Identifier: Apache-2.0
// The memory prediction of a case on the device it runs on: the shape algebra's
// (core/shape_algebra.h) plus what depends on the device. fa2's decode path (T_q up to its split
// tile's rows, and every paged case) allocates a split-KV workspace whose size follows the split
// count the launcher chooses from the device's multiprocessors and shared memory; the prediction
// makes the same choice through the same host function (fa2_decode_plan_for,
// kernels/fa2/fa2_split_choice.h), so predicted_bytes equals the tracked peak of an ok case
// unless memory.predicted_excludes names what it leaves out.
#pragma once

#include "core/case.h"
#include "core/result.h"
#include "runtime/target_info.h"

namespace fa2b {

// What the fa2 prediction leaves out where the device's multiprocessors are unknown.
inline constexpr const char* kFa2SplitWorkspaceExcluded = "fa2 split-KV workspace";

// predicted_memory(c) plus fa2's split-KV workspace on a CUDA device `t` (t.cuda; its sms and
// smem_per_block_optin, the environment's FA2BENCH_FA2_* overrides applied as the launcher
// applies them). Where t.sms is 0 (unknown) and the shape could split on some device, the
// workspace is named in predicted_excludes instead. On the CPU target (!t.cuda) cpu-flash's tile
// scratch for t.cpu_threads threads is added (cpu_flash_scratch, the backend's own sizing).
MemoryStats predicted_memory_on(const Case& c, const TargetInfo& t);

// fa2's split-KV workspace bytes of `c` on `t` (0 for other backends, the CPU target, or a plan
// without a split).
std::int64_t fa2_split_workspace_prediction(const Case& c, const TargetInfo& t);

}  // namespace fa2b
