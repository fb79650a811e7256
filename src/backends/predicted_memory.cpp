// SPDX-License-Identifier: Apache-2.0
#include "backends/predicted_memory.h"

#include "backends/cpu_backends.h"
#include "backends/shape_params.h"
#include "core/shape_algebra.h"
#include "fa2/fa2_split_choice.h"

namespace fa2b {
namespace {

// A device of more multiprocessors than any: a shape that splits there may split somewhere.
constexpr int kManySms = 1 << 20;

std::int64_t fa2_workspace(const Case& c, int sms, std::int64_t smem_optin) {
  // At the head dim its kernels run (a D that is not a multiple of 8 runs padded).
  Case kernel_case = c;
  kernel_case.D = head_dim_padded_to_8(c);
  const AttnParams p = shape_params(kernel_case);
  return fa2_decode_workspace_bytes(p, c.varlen(), fa2_decode_inputs(sms, smem_optin));
}

}  // namespace

std::int64_t fa2_split_workspace_prediction(const Case& c, const TargetInfo& t) {
  if (!t.cuda || c.backend != "fa2" || t.sms <= 0) return 0;
  return fa2_workspace(c, t.sms, t.smem_per_block_optin);
}

MemoryStats predicted_memory_on(const Case& c, const TargetInfo& t) {
  MemoryStats m = predicted_memory(c);
  // cpu-flash's tile scratch, one block per thread it runs on (cpu_backends.h).
  if (!t.cuda && c.backend == "cpu-flash") {
    m.predicted_bytes += cpu_flash_scratch(c, t.cpu_threads).bytes();
    return m;
  }
  if (!t.cuda || c.backend != "fa2") return m;
  if (t.sms > 0) {
    m.predicted_bytes += fa2_workspace(c, t.sms, t.smem_per_block_optin);
  } else if (fa2_workspace(c, kManySms,
                           t.smem_per_block_optin > 0 ? t.smem_per_block_optin : kSmemOptinSm90) >
             0) {
    m.predicted_excludes.push_back(kFa2SplitWorkspaceExcluded);
  }
  return m;
}

}  // namespace fa2b
