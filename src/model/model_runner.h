// SPDX-License-Identifier: Apache-2.0
// Measures one transformer case: build the model, a warm-up step (as the article measures), then
// timed steps; tracked peak of the timed steps against the plan. The host step (float32) on the
// CPU target, the CUDA step (fp16 / bf16, model/cuda/) on a device.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "core/model_case.h"
#include "core/model_plan.h"

namespace fa2b::model {

// The article's optimizer: AdamW at lr 1e-4 (PyTorch defaults otherwise).
inline constexpr float kArticleLearningRate = 1e-4f;

struct ModelResult {
  ModelCase c;
  std::string status = "ok";  // ok | unsupported | oom | error
  std::string reason;
  ModelPlan plan;
  std::int64_t peak_bytes = 0;       // tracked, timed steps, persistent memory included
  std::int64_t scratch_bytes = 0;    // attention backends' bytes beyond the plan (cpu-flash)
  std::int64_t requested_bytes = 0;  // oom: the allocation that failed
  // Medians over the timed steps, milliseconds.
  double forward_ms = 0, backward_ms = 0, optimizer_ms = 0, step_ms = 0;
  double tokens_per_s = 0, tflops = 0;
  double loss_first = 0, loss_last = 0;  // first timed step's loss and the last one's
  int steps = 0;                         // timed steps
};

// Never throws for problems of the case: they become the status. `budget` (0: none) emulates a
// smaller memory as --memory-budget does. `device` < 0: the host step; else the CUDA step on
// that device (unsupported in a build without CUDA).
ModelResult run_model_case(const ModelCase& c, std::int64_t budget, int device = -1);

nlohmann::json to_json(const ModelResult& r);
// The results' conventions block: FLOPs, memory and the model's own choices.
nlohmann::json model_conventions_json();

}  // namespace fa2b::model
