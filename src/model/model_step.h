// SPDX-License-Identifier: Apache-2.0
// One training step of the decoder-only transformer on the host, float32: token embedding ->
// pre-LN blocks (LN -> fused QKV -> causal attention -> out proj + residual -> LN -> MLP with
// GELU (tanh) -> + residual) -> final LN -> LM head (no bias); loss = mean of the logits (the
// seed article's); AdamW. The attention forward and backward are the chosen attention backend's
// (Backend::run / run_backward on AttnParams / AttnBwdParams). Every buffer comes from the
// MemoryTracker, allocated and freed in the order core/model_plan.cpp's schedule describes.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "backends/backend.h"
#include "core/model_case.h"
#include "model/ops.h"
#include "model/param_layout.h"
#include "runtime/memory_tracker.h"

namespace fa2b::model {

struct StepTimes {
  double forward_s = 0, backward_s = 0, optimizer_s = 0;
};

class TransformerStep {
 public:
  // Allocates the persistent memory (weights, AdamW state, tokens) and prepares the
  // attention backends (one per layer, or one for all: the plan's attention_instances). Throws
  // UnsupportedCase for what the CPU step cannot run (dtype other than fp32, a backend that refuses
  // the attention case) and OutOfMemory from the tracker. Weights: N(0, init_std) linear and
  // embedding weights (GPT-2's; tests raise init_std so that GELU and softmax work away from
  // their linear range), zero biases, LayerNorm gamma 1 and beta 0; tokens uniform in
  // [0, vocab); both from `seed`.
  TransformerStep(const ModelCase& m, MemoryTracker& tracker, std::uint64_t seed,
                  float init_std = 0.02f);
  ~TransformerStep();
  TransformerStep(const TransformerStep&) = delete;
  TransformerStep& operator=(const TransformerStep&) = delete;

  // Forward and backward: drops the last step's gradients first (PyTorch's
  // zero_grad(set_to_none=True)), allocates each parameter group's when the backward first
  // writes it, returns the loss and leaves every gradient written (on an exception none stays).
  double forward_backward(StepTimes* times = nullptr);
  // One AdamW update from the gradients (no-op with optimizer none).
  void optimizer_step(const AdamWSettings& s, StepTimes* times = nullptr);

  const ParamLayout& layout() const { return layout_; }
  float* params() { return params_.as<float>(); }
  // A flat copy of the last step's gradients (layout order); empty before the first step.
  std::vector<float> grads() const;
  const std::int32_t* tokens() const { return tokens_.as<std::int32_t>(); }
  // Bytes the prepared attention backends hold beyond what the shape algebra predicts for
  // them: cpu-flash's per-thread tile scratch (sized by the thread count); 0 for cpu-naive.
  std::int64_t attention_scratch_bytes() const { return attention_scratch_bytes_; }

 private:
  struct BlockActs;
  void forward_block(std::int64_t layer, BlockActs& a, const float* x_in, float* x_out);
  void backward_block(std::int64_t layer, BlockActs& a, const float* x_in, float* dx);
  AttnParams attention_params(std::int64_t layer, const BlockActs& a) const;
  Backend& attention(std::int64_t layer) {
    return *attention_[attention_.size() == 1 ? 0 : static_cast<std::size_t>(layer)];
  }
  bool recompute() const { return m_.recompute; }

  ModelCase m_;
  MemoryTracker& tracker_;
  ParamLayout layout_;
  float* g(std::int64_t offset);  // the gradient of flat element `offset`
  void allocate_grads(std::size_t group);
  void drop_grads();
  double step(StepTimes* times);  // forward_backward's body

  TrackedBuffer params_, adam_m_, adam_v_, tokens_;
  std::vector<ParamGroup> groups_;
  std::vector<TrackedBuffer> grads_;  // per group, allocated in the backward
  std::vector<std::unique_ptr<Backend>> attention_;
  std::int64_t attention_scratch_bytes_ = 0;
  std::int64_t adam_steps_ = 0;
};

}  // namespace fa2b::model
