// SPDX-License-Identifier: Apache-2.0
// The model planner: parameters, bytes and FLOPs of one transformer training step, predicted
// without running anything. Pure host code; the step (src/model/) allocates exactly what this
// file lists, in the order its comments give, so the tracked peak can be compared with it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/model_case.h"

namespace fa2b {

// Parameter counts (elements). Per block: LayerNorm gamma and beta twice, the fused QKV
// projection (weight hidden x qkv_width, bias qkv_width), the output projection (hidden x
// hidden + hidden), the MLP up (hidden x mlp_hidden + mlp_hidden) and down (mlp_hidden x hidden
// + hidden). Outside the blocks: the token embedding (vocab x hidden), the final LayerNorm
// (2 hidden) and the LM head (hidden x vocab, no bias, not tied to the embedding).
struct ModelParams {
  std::int64_t embedding = 0, per_block = 0, final_ln = 0, lm_head = 0;
  std::int64_t total = 0;
};
ModelParams model_params(const ModelCase& m);

// One moment of the step's memory schedule: its name and the bytes live then (persistent
// memory included).
struct PlanPhase {
  std::string name;
  std::int64_t bytes = 0;
};

// The CUDA step's own persistent buffers (all 0 for the host step, i.e. a backend that does not
// run on the device): cuBLASLt's workspace (one fixed buffer); the float32 partial sums of its
// row reductions (bias and LayerNorm parameter gradients: `reduce_chunks` row ranges times the
// widest reduced row, or the loss's kModelLossPartials) and the float64 loss; the embedding
// backward's token index (positions sorted by token, segment starts, segment tokens: int32).
inline constexpr std::int64_t kModelGemmWorkspaceBytes = 32 << 20;
inline constexpr std::int64_t kModelReduceChunks = 64;
inline constexpr std::int64_t kModelLossPartials = 1024;
struct DeviceStepBytes {
  std::int64_t gemm_workspace = 0, reduce_partials = 0, token_index = 0;
  std::int64_t reduce_chunks = 0;  // row ranges of the column reductions: min(64, tokens)
  std::int64_t total() const { return gemm_workspace + reduce_partials + token_index; }
};
DeviceStepBytes device_step_bytes(const ModelCase& m);

struct ModelPlan {
  ModelParams params;
  // Persistent for the whole step (allocated before it): weights in the case's dtype, AdamW's m
  // and v in the case's dtype too (PyTorch's AdamW keeps exp_avg and
  // exp_avg_sq like the parameter; 0 with optimizer none; no float32 master weights), the
  // int32 tokens, the CUDA step's own buffers (device_step_bytes) and the prepared attention
  // backends. Gradients (grad_bytes, in the dtype) are not persistent: each parameter group's
  // (the LM head, the final LayerNorm, each block, the embedding) is allocated when the backward
  // first writes it and all are dropped when the next step starts (PyTorch's
  // zero_grad(set_to_none=True)).
  std::int64_t weight_bytes = 0, grad_bytes = 0, optimizer_bytes = 0, token_bytes = 0;
  std::int64_t device_step_bytes = 0;
  // The attention inside one block, from the shape algebra (core/shape_algebra.h) for the
  // case's backend: what its forward saves (LSE, plus P where materialised) and its backward's
  // workspace; backend_bytes is all a prepared backend holds (predicted peak of the attention
  // case less the tensors the caller owns: Q, K, V, O, LSE, dO, dQ, dK, dV).
  std::int64_t attention_saved_bytes = 0, attention_workspace_bytes = 0;
  std::int64_t attention_backend_bytes = 0;
  // Prepared attention backends: one per layer when the backend keeps saved state (P) between
  // a layer's forward and backward and recompute is off; else one for all layers.
  int attention_instances = 0;
  // Activations: what one block keeps for the backward (recompute off: every tensor below;
  // on: its input only) and everything saved at the end of the forward.
  std::int64_t block_saved_bytes = 0, activation_bytes = 0;
  std::int64_t persistent_bytes = 0;
  std::vector<PlanPhase> phases;  // in step order
  std::int64_t peak_bytes = 0;
  std::string peak_phase;
  // FLOPs of one step: dense 6 * params * tokens (every parameter, the embedding included),
  // plus attention 3.5x its causal forward (flash-attention's fwd_bwd convention) per layer.
  double dense_flops = 0, attention_flops = 0, flops = 0;
};

// Element sizes of the step's activations, named once so planner and step share the shapes but
// not the schedule: [tokens, hidden] rows, [tokens, qkv_width], [tokens, mlp_hidden],
// [tokens, vocab], and the float32 LayerNorm statistics (mean and rstd per token).
struct ActivationShapes {
  std::int64_t row_h, row_qkv, row_mlp, row_vocab;  // elements
  std::int64_t ln_stats_bytes;                      // 2 * tokens * 4
  std::int64_t lse_bytes;                           // 4 * B * heads * T
};
ActivationShapes activation_shapes(const ModelCase& m);

ModelPlan plan_model(const ModelCase& m);

// Overflow guard: every byte count the plan forms fits in int64. `why` names the term.
bool model_sizes_fit_int64(const ModelCase& m, std::string* why);

// The conventions of model results, for the results' `conventions` block and `plan`.
const char* model_flops_convention();
const char* model_memory_convention();

}  // namespace fa2b
