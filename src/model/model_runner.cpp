// SPDX-License-Identifier: Apache-2.0
#include "model/model_runner.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "backends/backend.h"
#include "io/results_json.h"
#include "model/model_step.h"
#include "runtime/memory_tracker.h"
#if FA2BENCH_WITH_CUDA
#include <cuda_runtime.h>

#include "model/cuda/cuda_model_step.h"
#include "model/cuda/stream_memory_tracker.h"
#include "runtime/cuda/cuda_check.h"
#endif

namespace fa2b::model {
namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// A warm-up step (at least one), then timed steps; fills the result's timing, peak and loss.
template <typename Step>
void measure(const ModelCase& c, Step& step, MemoryTracker& tracker, ModelResult& r) {
  r.scratch_bytes = step.attention_scratch_bytes();
  AdamWSettings adamw;
  adamw.lr = kArticleLearningRate;
  for (int i = 0; i < std::max(1, c.measure.warmup); ++i) {
    step.forward_backward();
    step.optimizer_step(adamw);
  }
  tracker.reset_peak();
  std::vector<double> fwd, bwd, opt, total;
  double spent = 0;
  const int wanted = std::max(1, c.measure.min_samples);
  while (r.steps < wanted && (r.steps == 0 || spent < c.measure.max_time_s)) {
    StepTimes t;
    const double loss = step.forward_backward(&t);
    step.optimizer_step(adamw, &t);
    if (r.steps == 0) r.loss_first = loss;
    r.loss_last = loss;
    fwd.push_back(t.forward_s);
    bwd.push_back(t.backward_s);
    opt.push_back(t.optimizer_s);
    total.push_back(t.forward_s + t.backward_s + t.optimizer_s);
    spent += total.back();
    ++r.steps;
  }
  r.peak_bytes = tracker.peak_bytes();
  r.forward_ms = 1e3 * median(fwd);
  r.backward_ms = 1e3 * median(bwd);
  r.optimizer_ms = 1e3 * median(opt);
  r.step_ms = 1e3 * median(total);
  if (r.step_ms > 0) {
    r.tokens_per_s = static_cast<double>(c.tokens()) / (r.step_ms / 1e3);
    r.tflops = r.plan.flops / (r.step_ms / 1e3) / 1e12;
  }
}

}  // namespace

ModelResult run_model_case(const ModelCase& c, std::int64_t budget, int device) {
  ModelResult r;
  r.c = c;
  r.plan = plan_model(c);
  std::unique_ptr<MemoryTracker> tracker;
  try {
    if (device < 0) {
      tracker = std::make_unique<HostMemoryTracker>();
      tracker->set_budget(budget);
      TransformerStep step(c, *tracker, c.measure.seed);
      measure(c, step, *tracker, r);
    } else {
#if FA2BENCH_WITH_CUDA
      FA2B_CUDA_CHECK(cudaSetDevice(device));
      auto stream_tracker = std::make_unique<cuda::StreamMemoryTracker>();
      const cudaStream_t stream = stream_tracker->stream();
      tracker = std::move(stream_tracker);
      tracker->set_budget(budget);
      cuda::CudaTransformerStep step(c, *tracker, stream, c.measure.seed);
      measure(c, step, *tracker, r);
#else
      throw UnsupportedCase("this fa2bench is built without CUDA: no CUDA model step");
#endif
    }
  } catch (const UnsupportedCase& e) {
    r.status = "unsupported";
    r.reason = e.what();
  } catch (const OutOfMemory& e) {
    r.status = "oom";
    r.reason = e.what();
    r.requested_bytes = e.requested();
    r.peak_bytes = tracker ? tracker->peak_bytes() : 0;
  } catch (const std::exception& e) {
    r.status = "error";
    r.reason = e.what();
  }
  return r;
}

nlohmann::json to_json(const ModelResult& r) {
  const ModelCase& c = r.c;
  const ModelPlan& p = r.plan;
  nlohmann::json j = {
      {"id", c.id()},
      {"sweep", c.sweep},
      {"backend", c.backend},
      {"role", c.role},
      {"params", model_params_json(c)},
      {"status", r.status},
      {"reason", r.reason},
      {"plan",
       {{"parameters", p.params.total},
        {"weight_bytes", p.weight_bytes},
        {"grad_bytes", p.grad_bytes},
        {"optimizer_bytes", p.optimizer_bytes},
        {"device_step_bytes", p.device_step_bytes},
        {"activation_bytes", p.activation_bytes},
        {"block_saved_bytes", p.block_saved_bytes},
        {"attention_saved_bytes", p.attention_saved_bytes},
        {"attention_workspace_bytes", p.attention_workspace_bytes},
        {"attention_backend_bytes", p.attention_backend_bytes},
        {"predicted_peak_bytes", p.peak_bytes},
        {"peak_phase", p.peak_phase},
        {"flops", p.flops}}},
      {"memory",
       {{"peak_bytes", r.peak_bytes},
        {"predicted_bytes", p.peak_bytes},
        {"attention_scratch_bytes", r.scratch_bytes},
        {"requested_bytes", r.requested_bytes}}},
      {"timing",
       {{"steps", r.steps},
        {"forward_ms", r.forward_ms},
        {"backward_ms", r.backward_ms},
        {"optimizer_ms", r.optimizer_ms},
        {"step_ms", r.step_ms}}},
      {"metrics",
       {{"tokens_per_s", r.tokens_per_s},
        {"tflops", r.tflops},
        {"loss_first", r.loss_first},
        {"loss_last", r.loss_last}}},
  };
  return j;
}

nlohmann::json model_conventions_json() {
  return {{"flops", model_flops_convention()},
          {"memory", model_memory_convention()},
          {"model",
           "decoder-only, pre-LN: token embedding; per block LN -> fused QKV -> causal attention "
           "(the case's backend) -> out proj + residual -> LN -> MLP up, GELU (tanh "
           "approximation), down + residual; final LN; LM head without bias; LayerNorm eps "
           "1e-5; loss = mean of the logits (the seed article's)"},
          {"optimizer",
           "AdamW lr 1e-4, betas (0.9, 0.999), eps 1e-8, weight decay 0.01; m and v "
           "in the case's dtype (PyTorch's AdamW: float32 for fp32 models, bf16 for bf16 ones; "
           "no master weights), update math in float32"},
          {"timing",
           "after measure.warmup steps (at least one); medians over the timed steps "
           "of each phase's time (cpu target: host wall time; cuda target: CUDA events on the "
           "step's stream); step = forward + backward + optimizer"}};
}

}  // namespace fa2b::model
