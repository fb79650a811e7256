// SPDX-License-Identifier: Apache-2.0
// The transformer training step on the CPU target: gradients against float64 finite
// differences, the two CPU attentions agreeing, the loss going down under AdamW, and the
// tracked peak equal to the planner's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "core/model_plan.h"
#include "model/model_step.h"
#include "model_reference.h"
#include "runtime/memory_tracker.h"
#include "tiny_model.h"

namespace fa2b {
namespace {

constexpr std::uint64_t kSeed = 7;

// The float32 step's loss and gradients against the float64 reference forward: its loss, and
// central differences (step 1e-5: float64 rounding of the loss stays ~1e-12 of a gradient,
// truncation ~1e-10) on three entries of every parameter tensor. Weights N(0, 0.3) rather
// than GPT-2's 0.02: pre-activations of order 1 put GELU's cubic term and a peaked softmax
// in play, which tiny weights would leave untested.
void expect_matches_float64(const ModelCase& m) {
  HostMemoryTracker tracker;
  model::TransformerStep step(m, tracker, kSeed, 0.3f);
  const double loss = step.forward_backward();
  const std::vector<float> grads = step.grads();
  const model::ParamLayout& lay = step.layout();
  std::vector<double> p(step.params(), step.params() + lay.total);
  const double ref = model_reference::loss(m, lay, p, step.tokens());
  EXPECT_NEAR(loss, ref, 1e-6 + 1e-5 * std::abs(ref));

  std::mt19937_64 rng(3);
  struct Sample {
    std::string tensor;
    double analytic, numeric;
  };
  std::vector<Sample> samples;
  for (const model::ParamTensor& t : lay.tensors) {
    std::uniform_int_distribution<std::int64_t> pick(0, t.count() - 1);
    for (int k = 0; k < 3; ++k) {
      std::int64_t i = pick(rng);
      // Embedding rows of tokens that do not occur have zero gradient: check occurring ones.
      if (t.name == "embedding") i = step.tokens()[k] * m.hidden + pick(rng) % m.hidden;
      const std::size_t at = static_cast<std::size_t>(t.offset + i);
      const double e = 1e-5, keep = p[at];
      p[at] = keep + e;
      const double up = model_reference::loss(m, lay, p, step.tokens());
      p[at] = keep - e;
      const double down = model_reference::loss(m, lay, p, step.tokens());
      p[at] = keep;
      samples.push_back({t.name, grads[at], (up - down) / (2 * e)});
    }
  }
  // Per tensor: float32 accumulation over at most a few hundred terms gives 1e-3 relative;
  // entries near zero get 1e-3 of the tensor's largest sampled gradient.
  int nonzero = 0;
  for (std::size_t k = 0; k < samples.size(); k += 3) {
    double scale = 0;
    for (std::size_t j = k; j < k + 3; ++j) scale = std::max(scale, std::abs(samples[j].numeric));
    for (std::size_t j = k; j < k + 3; ++j) {
      const Sample& s = samples[j];
      EXPECT_NEAR(s.analytic, s.numeric, 1e-3 * std::abs(s.numeric) + 1e-3 * scale) << s.tensor;
      nonzero += std::abs(s.numeric) > 1e-9;
    }
  }
  EXPECT_GT(nonzero, static_cast<int>(samples.size()) * 9 / 10);  // the check is not all zeros
}

TEST(ModelStep, NaiveAttentionStepMatchesFloat64FiniteDifferences) {
  expect_matches_float64(tiny("cpu-naive"));
}

TEST(ModelStep, FlashAttentionGroupedQueryStepMatchesFloat64FiniteDifferences) {
  ModelCase m = tiny("cpu-flash");
  m.H_kv = 2;
  expect_matches_float64(m);
}

TEST(ModelStep, NaiveAndFlashAttentionGiveTheSameLossAndGradients) {
  HostMemoryTracker t1, t2;
  model::TransformerStep naive(tiny("cpu-naive"), t1, kSeed);
  model::TransformerStep flash(tiny("cpu-flash"), t2, kSeed);
  const double l1 = naive.forward_backward(), l2 = flash.forward_backward();
  EXPECT_NEAR(l1, l2, 1e-6 * std::max(1.0, std::abs(l1)));
  const std::vector<float> g1 = naive.grads(), g2 = flash.grads();
  ASSERT_EQ(g1.size(), static_cast<std::size_t>(naive.layout().total));
  double scale = 0, worst = 0;
  for (std::size_t i = 0; i < g1.size(); ++i) {
    scale = std::max(scale, static_cast<double>(std::abs(g1[i])));
    worst = std::max(worst, static_cast<double>(std::abs(g1[i] - g2[i])));
  }
  EXPECT_GT(scale, 0.0);
  EXPECT_LE(worst, 1e-4 * scale);
}

// lr 1e-3 rather than the article's 1e-4: AdamW moves each weight by about lr per step whatever
// the gradient's size, and the loss (the mean logit) falls by about lr * sum |mean LN output|
// per step through the LM head alone; at 1e-3 twenty steps take it down by far more than any
// rounding, every step.
TEST(ModelStep, LossDecreasesOverTwentyAdamWStepsOnAFixedBatch) {
  HostMemoryTracker tracker;
  model::TransformerStep step(tiny("cpu-flash"), tracker, kSeed);
  model::AdamWSettings s;
  s.lr = 1e-3f;
  std::vector<double> losses;
  for (int i = 0; i < 20; ++i) {
    losses.push_back(step.forward_backward());
    step.optimizer_step(s);
  }
  for (std::size_t i = 1; i < losses.size(); ++i) EXPECT_LT(losses[i], losses[i - 1]) << i;
  EXPECT_LT(losses.back(), losses.front() - 0.1);
}

TEST(ModelStep, OptimizerNoneLeavesTheWeights) {
  ModelCase m = tiny("cpu-naive");
  m.optimizer = Optimizer::none;
  HostMemoryTracker tracker;
  model::TransformerStep step(m, tracker, kSeed);
  const double first = step.forward_backward();
  step.optimizer_step(model::AdamWSettings{});
  EXPECT_EQ(step.forward_backward(), first);
}

// The tracked peak of a step (after a warm-up step) against the plan, both attentions, with
// and without recompute and optimizer state. cpu-naive: equal. cpu-flash: the plan plus the
// tile scratch its prepare() allocates, which the attention's own prediction leaves out too
// (CpuBackward.FlashTrainingPeakIsPredictedPlusConstantScratch).
TEST(ModelStep, TrackedPeakEqualsThePlannedPeak) {
  for (const char* backend : {"cpu-naive", "cpu-flash"}) {
    for (bool recompute : {false, true}) {
      for (Optimizer opt : {Optimizer::adamw, Optimizer::none}) {
        ModelCase m = tiny(backend);
        m.recompute = recompute;
        m.optimizer = opt;
        const ModelPlan plan = plan_model(m);
        HostMemoryTracker tracker;
        model::TransformerStep step(m, tracker, kSeed);
        const std::int64_t scratch = step.attention_scratch_bytes();
        EXPECT_EQ(tracker.current_bytes(), plan.persistent_bytes + scratch) << m.id();
        step.forward_backward();
        step.optimizer_step(model::AdamWSettings{});
        tracker.reset_peak();
        step.forward_backward();
        step.optimizer_step(model::AdamWSettings{});
        EXPECT_EQ(tracker.peak_bytes(), plan.peak_bytes + scratch) << m.id();
        // The gradients stay until the next step starts.
        EXPECT_EQ(tracker.current_bytes(), plan.persistent_bytes + plan.grad_bytes + scratch)
            << m.id();
        if (std::string(backend) == "cpu-naive") {
          EXPECT_EQ(scratch, 0);
        } else {
          EXPECT_GT(scratch, 0);
          // The scratch is per prepared backend: one per layer, or one with recompute.
          EXPECT_EQ(scratch % plan.attention_instances, 0);
        }
      }
    }
  }
}

// The plan is exact: a budget of the planned peak runs, one byte less is out of memory.
TEST(ModelStep, BudgetOfThePlannedPeakFitsAndOneByteLessDoesNot) {
  const ModelCase m = tiny("cpu-naive");
  const std::int64_t peak = plan_model(m).peak_bytes;
  HostMemoryTracker fits;
  fits.set_budget(peak);
  model::TransformerStep ok(m, fits, kSeed);
  EXPECT_NO_THROW(ok.forward_backward());
  HostMemoryTracker tight;
  tight.set_budget(peak - 1);
  model::TransformerStep short_of_one(m, tight, kSeed);
  EXPECT_THROW(short_of_one.forward_backward(), OutOfMemory);
  EXPECT_EQ(tight.current_bytes(), plan_model(m).persistent_bytes);  // nothing leaked
  EXPECT_TRUE(short_of_one.grads().empty());
}

TEST(ModelStep, LayoutCountsTheSameParametersAsThePlanner) {
  ModelCase m = tiny("cpu-naive");
  m.H_kv = 1;
  m.mlp_ratio = 3;
  EXPECT_EQ(model::param_layout(m).total, model_params(m).total);
}

TEST(ModelStep, RefusesWhatTheCpuStepCannotRun) {
  HostMemoryTracker tracker;
  ModelCase m = tiny("cpu-naive");
  m.dtype = DType::bf16;
  EXPECT_THROW(model::TransformerStep(m, tracker, kSeed), UnsupportedCase);
  EXPECT_THROW(model::TransformerStep(tiny("fa2"), tracker, kSeed), UnsupportedCase);
  EXPECT_EQ(tracker.current_bytes(), 0);
}

}  // namespace
}  // namespace fa2b
