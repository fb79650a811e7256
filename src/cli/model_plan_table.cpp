// SPDX-License-Identifier: Apache-2.0
// `plan` for transformer sweeps: the model planner's numbers per case.
#include <fmt/format.h>

#include "cli/model_commands.h"
#include "cli/tables.h"
#include "core/model_plan.h"

namespace fa2b {

int print_model_plan(const Config& config, std::int64_t memory, const std::string& memory_from) {
  fmt::print("plan for {} ({} transformer cases), memory {} ({})\n", config.path,
             config.model_cases.size(), human_bytes(static_cast<double>(memory)), memory_from);
  fmt::print("{:<10} {:<54} {:>9} {:>10} {:>10} {:>10} {:>11} {:>10} {:>10} {:>9} {:>5}\n",
             "backend", "model", "params", "weights", "grads", "adamw", "activations", "attn/layer",
             "peak", "TFLOP", "fits");
  for (const ModelCase& m : config.model_cases) {
    const ModelPlan p = plan_model(m);
    fmt::print("{:<10} {:<54} {:>8.2f}M {:>10} {:>10} {:>10} {:>11} {:>10} {:>10} {:>9.3f} {:>5}\n",
               m.backend, m.shape_key(), static_cast<double>(p.params.total) / 1e6,
               human_bytes(static_cast<double>(p.weight_bytes)),
               human_bytes(static_cast<double>(p.grad_bytes)),
               human_bytes(static_cast<double>(p.optimizer_bytes)),
               human_bytes(static_cast<double>(p.activation_bytes)),
               human_bytes(static_cast<double>(p.attention_backend_bytes)),
               human_bytes(static_cast<double>(p.peak_bytes)), p.flops / 1e12,
               p.peak_bytes <= memory ? "yes" : "NO");
    fmt::print(
        "{:<10}   per block {} params, saves {} (attention: saved {}, backward workspace {}); "
        "peak at: {}\n",
        "", p.params.per_block, human_bytes(static_cast<double>(p.block_saved_bytes)),
        human_bytes(static_cast<double>(p.attention_saved_bytes)),
        human_bytes(static_cast<double>(p.attention_workspace_bytes)), p.peak_phase);
  }
  fmt::print(
      "\nparams: embedding, per block LN gamma/beta x2, fused QKV, out proj, MLP up/down (all\n"
      "with biases), final LN, LM head (no bias). adamw: m and v in the dtype. activations: what\n"
      "the forward keeps for the backward (recompute on: each block's input only). attn/layer:\n"
      "what one prepared attention backend holds (its saved P where materialised, its backward\n"
      "workspace); one per layer, one in all with recompute. peak: the step's predicted tracked\n"
      "peak, persistent memory included.\nFLOPs: {}\n",
      model_flops_convention());
  return kExitOk;
}

}  // namespace fa2b
