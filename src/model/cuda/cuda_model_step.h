// SPDX-License-Identifier: Apache-2.0
// One training step of the decoder-only transformer on a CUDA device, fp16 or bf16: the same
// model, parameter layout and allocation schedule as the host step (model/model_step.h), with
// cuBLASLt GEMMs (model/cuda/gemm.h), this folder's kernels for the rest, and the case's CUDA
// attention backend (Backend::run / run_backward on the fused QKV rows) inside. Every buffer
// comes from the tracker in core/model_plan.cpp's order, so the tracked peak is the plan's.
// All work runs on one stream; phases are timed with CUDA events on it.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "backends/backend.h"
#include "core/model_case.h"
#include "model/model_step.h"
#include "model/ops.h"
#include "model/param_layout.h"
#include "runtime/memory_tracker.h"

namespace fa2b::model::cuda {

class LtGemm;

class CudaTransformerStep {
 public:
  // Allocates the persistent memory (weights, AdamW m and v in the dtype, tokens, the
  // token index, cuBLASLt's workspace, reduction partials) and prepares the attention backends
  // (the plan's attention_instances). Weights drawn on the device from `seed` as
  // model/param_layout.h describes (a counter-based normal generator, not the host step's
  // std::mt19937_64: set_params() copies another step's over), tokens model::initial_tokens'.
  // Throws UnsupportedCase for what it cannot run (fp32, hidden or D not a multiple of 8, a host
  // backend, a backend that refuses the attention case) and OutOfMemory from the tracker. `tracker`
  // must hand out device memory usable on `stream`.
  CudaTransformerStep(const ModelCase& m, MemoryTracker& tracker, cudaStream_t stream,
                      std::uint64_t seed, float init_std = 0.02f);
  ~CudaTransformerStep();
  CudaTransformerStep(const CudaTransformerStep&) = delete;
  CudaTransformerStep& operator=(const CudaTransformerStep&) = delete;

  // Forward and backward: drops the last step's gradients first (PyTorch's
  // zero_grad(set_to_none=True)), allocates each parameter group's when the backward first
  // writes it, returns the loss (synchronises) and leaves every gradient written (on an
  // exception none stays).
  double forward_backward(StepTimes* times = nullptr);
  // One AdamW update from the gradients (no-op with optimizer none).
  void optimizer_step(const AdamWSettings& s, StepTimes* times = nullptr);

  const ParamLayout& layout() const { return layout_; }
  const std::vector<std::int32_t>& tokens() const { return tokens_host_; }
  // Host copies widened to float32 (grads: empty before the first step), and the weights
  // replaced by `host` (layout().total floats, rounded to the dtype). For tests.
  std::vector<float> params_to_host() const;
  std::vector<float> grads_to_host() const;
  void set_params(const float* host);
  // From the next step on, every gradient group is set to 0xFF bytes (NaN in fp16 and bf16)
  // when allocated: a gradient the step does not write stays NaN. For tests.
  void poison_new_grads(bool on) { poison_grads_ = on; }
  // Bytes the prepared attention backends hold beyond the plan's prediction (0 expected).
  std::int64_t attention_scratch_bytes() const { return attention_scratch_bytes_; }

 private:
  struct BlockActs;
  void forward_block(std::int64_t layer, BlockActs& a, const void* x_in, void* x_out);
  void backward_block(std::int64_t layer, BlockActs& a, const void* x_in, void* dx);
  AttnParams attention_params(const BlockActs* a) const;
  Backend& attention(std::int64_t layer) {
    return *attention_[attention_.size() == 1 ? 0 : static_cast<std::size_t>(layer)];
  }
  const void* w(std::int64_t offset) const;
  void* g(std::int64_t offset) const;  // the gradient of flat element `offset`
  void allocate_grads(std::size_t group);
  void drop_grads();
  double step(StepTimes* times);  // forward_backward's body
  TrackedBuffer rows(std::int64_t elements, const char* what);

  ModelCase m_;
  MemoryTracker& tracker_;
  cudaStream_t stream_;
  KernelDType kdtype_;
  std::int64_t esize_;
  ParamLayout layout_;
  std::vector<std::int32_t> tokens_host_;
  std::int64_t segments_ = 0, reduce_chunks_ = 0;
  TrackedBuffer params_, adam_m_, adam_v_, tokens_, token_index_, gemm_workspace_, partials_;
  std::vector<ParamGroup> groups_;
  std::vector<TrackedBuffer> grads_;  // per group, allocated in the backward
  bool poison_grads_ = false;
  std::unique_ptr<LtGemm> gemm_;
  std::vector<std::unique_ptr<Backend>> attention_;
  std::int64_t attention_scratch_bytes_ = 0;
  std::int64_t adam_steps_ = 0;
  cudaEvent_t events_[4] = {};
};

}  // namespace fa2b::model::cuda
