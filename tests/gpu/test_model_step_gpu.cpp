// SPDX-License-Identifier: Apache-2.0
// The transformer training step on a CUDA device (model/cuda/): the bf16 step against the
// float32 host step from the same (bf16-rounded) weights, naive vs fa2 attention inside, the
// loss falling under AdamW, tracked peak = planned peak, out of memory as a status.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "../unit/tiny_model.h"
#include "common/numeric.h"
#include "core/model_plan.h"
#include "gpu_available.h"
#include "model/cuda/cuda_model_step.h"
#include "model/cuda/stream_memory_tracker.h"
#include "model/model_runner.h"
#include "model/model_step.h"
#include "runtime/memory_tracker.h"

namespace fa2b {
namespace {

constexpr std::uint64_t kSeed = 7;

// The tiny model in bf16 on the device, with 2 heads of 32 instead of 4 of 16: 32 is the
// smallest head dim of our CUDA attention kernels (fa2 and naive).
ModelCase tiny_cuda(const std::string& backend, std::int64_t heads = 2) {
  ModelCase m = tiny(backend);
  m.dtype = DType::bf16;
  m.heads = m.H_kv = heads;
  return m;
}

ModelCase host_twin(ModelCase m) {  // the same model, float32, on the host
  m.backend = m.role = "cpu-naive";
  m.dtype = DType::fp32;
  return m;
}

float round_bf16(float x) {
  return bf16_to_float(float_to_bf16(x));
}

struct TensorError {
  double rel_fro = 0, max_abs = 0, scale = 0;  // ||a-b|| / ||b||, max |a-b|, max |b|
};

TensorError compare(const float* a, const float* b, std::int64_t n) {
  double diff2 = 0, ref2 = 0;
  TensorError e;
  for (std::int64_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(a[i]) - b[i];
    diff2 += d * d;
    ref2 += static_cast<double>(b[i]) * b[i];
    e.max_abs = std::max(e.max_abs, std::abs(d));
    e.scale = std::max(e.scale, static_cast<double>(std::abs(b[i])));
  }
  e.rel_fro = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  return e;
}

// The loss is linear in the LM head: loss = sum_{i,v} dL/dW_head[i,v] * W_head[i,v] (no
// bias). The sum of the terms' magnitudes is the loss's natural scale: a few bf16 roundings
// (2^-9 each) per term move the loss by well under 1% of it, a wrong layer by far more.
double loss_scale(const model::ParamLayout& lay, const float* w, const float* g) {
  const model::ParamTensor& head = lay.tensors.back();
  double s = 0;
  for (std::int64_t i = 0; i < head.count(); ++i)
    s += std::abs(static_cast<double>(w[head.offset + i]) * g[head.offset + i]);
  return s;
}

class CudaModelStepTest : public ::testing::Test {
 protected:
  void SetUp() override { FA2B_REQUIRE_GPU(); }
};

// bf16 on the device against float32 on the host, both from the same bf16-representable
// weights and the same tokens. Gradient groups are poisoned (NaN) as they are allocated: every
// gradient must be written. Per tensor the relative Frobenius error must stay under 5%: bf16 keeps
// 8 bits (relative rounding 2^-9 = 0.2%), and each gradient passes through ~10-20 roundings of
// activations and GEMM outputs over the 2 blocks, which compound to ~1-2% in norm; a wrong
// transpose, a missing term or a wrong scale is an O(1) error.
void expect_matches_host(const ModelCase& m, float init_std) {
  SCOPED_TRACE(m.id());
  model::cuda::StreamMemoryTracker dev_tracker;
  model::cuda::CudaTransformerStep dev(m, dev_tracker, dev_tracker.stream(), kSeed, init_std);
  HostMemoryTracker host_tracker;
  model::TransformerStep host(host_twin(m), host_tracker, kSeed, init_std);
  const model::ParamLayout& lay = host.layout();
  ASSERT_EQ(lay.total, dev.layout().total);
  for (std::int64_t i = 0; i < lay.total; ++i) host.params()[i] = round_bf16(host.params()[i]);
  dev.set_params(host.params());
  ASSERT_TRUE(std::equal(dev.tokens().begin(), dev.tokens().end(), host.tokens()));
  const std::vector<float> w_dev = dev.params_to_host();
  ASSERT_TRUE(std::equal(w_dev.begin(), w_dev.end(), host.params()));

  dev.poison_new_grads(true);
  const double loss_dev = dev.forward_backward();
  const double loss_host = host.forward_backward();
  const std::vector<float> g_dev = dev.grads_to_host();
  const std::vector<float> g_host_copy = host.grads();
  ASSERT_EQ(g_dev.size(), g_host_copy.size());
  const float* g_host = g_host_copy.data();
  std::int64_t nonfinite = 0;
  for (float v : g_dev) nonfinite += !std::isfinite(v);
  EXPECT_EQ(nonfinite, 0) << "gradients left unwritten (NaN poison) or overflowed";

  const double scale = loss_scale(lay, host.params(), g_host);
  EXPECT_GT(scale, 0.0);
  EXPECT_NEAR(loss_dev, loss_host, 0.01 * scale);
  for (const model::ParamTensor& t : lay.tensors) {
    const TensorError e = compare(g_dev.data() + t.offset, g_host + t.offset, t.count());
    EXPECT_GT(e.scale, 0.0) << t.name;
    EXPECT_LT(e.rel_fro, 0.05) << t.name << " max |diff| " << e.max_abs << " of " << e.scale;
    EXPECT_LT(e.max_abs, 0.1 * e.scale) << t.name;
  }
  // Embedding rows of tokens absent from the batch: exactly zero.
  std::vector<bool> seen(static_cast<std::size_t>(m.vocab), false);
  for (std::int32_t tok : dev.tokens()) seen[static_cast<std::size_t>(tok)] = true;
  for (std::int64_t v = 0; v < m.vocab; ++v) {
    if (seen[static_cast<std::size_t>(v)]) continue;
    for (std::int64_t i = 0; i < m.hidden; ++i)
      ASSERT_EQ(g_dev[static_cast<std::size_t>(lay.embedding + v * m.hidden + i)], 0.0f) << v;
  }
}

// Weights N(0, 0.1) rather than GPT-2's 0.02: pre-activations of order 1 exercise GELU's cubic
// term and a non-uniform softmax (the host step's own gradient test takes 0.3, where bf16's
// rounding of Q and K would already move the scores of a peaked softmax by several percent).
constexpr float kInitStd = 0.1f;

TEST_F(CudaModelStepTest, Fa2Bf16StepMatchesTheFloat32HostStep) {
  expect_matches_host(tiny_cuda("fa2"), kInitStd);
}

TEST_F(CudaModelStepTest, NaiveBf16StepMatchesTheFloat32HostStep) {
  expect_matches_host(tiny_cuda("naive"), kInitStd);
}

TEST_F(CudaModelStepTest, StandardBf16StepMatchesTheFloat32HostStep) {
  expect_matches_host(tiny_cuda("standard"), kInitStd);
}

TEST_F(CudaModelStepTest, Fa2GroupedQueryStepMatchesTheFloat32HostStep) {
  ModelCase m = tiny_cuda("fa2");
  m.hidden = 128;
  m.heads = 4;
  m.H_kv = 2;  // D 32, the fused QKV narrows to 128 + 2 * 64
  expect_matches_host(m, kInitStd);
}

// An odd T that is no multiple of any tile (and of 8: rows of the loss are not 16-byte sums).
TEST_F(CudaModelStepTest, Fa2StepAtAnOddLongerSequenceMatchesTheHostStep) {
  ModelCase m = tiny_cuda("fa2");
  m.B = 1;
  m.T = 1001;
  expect_matches_host(m, kInitStd);
}

TEST_F(CudaModelStepTest, RecomputeGivesTheSameLossAndGradients) {
  ModelCase m = tiny_cuda("fa2");
  model::cuda::StreamMemoryTracker t1, t2;
  model::cuda::CudaTransformerStep plain(m, t1, t1.stream(), kSeed, kInitStd);
  m.recompute = true;
  model::cuda::CudaTransformerStep recompute(m, t2, t2.stream(), kSeed, kInitStd);
  // The same forward kernels on the same inputs: the same loss bits. The gradients match but
  // for fa2's float32 atomic dQ accumulation (order-dependent roundings).
  EXPECT_EQ(plain.forward_backward(), recompute.forward_backward());
  const std::vector<float> g1 = plain.grads_to_host(), g2 = recompute.grads_to_host();
  for (const model::ParamTensor& t : plain.layout().tensors) {
    EXPECT_LT(compare(g2.data() + t.offset, g1.data() + t.offset, t.count()).rel_fro, 1e-2)
        << t.name;
  }
}

// Naive and fa2 attention inside the same bf16 model: the rest of the step is identical, so
// only the attention's own bf16 rounding separates them (naive rounds P to bf16, fa2 does not).
TEST_F(CudaModelStepTest, NaiveAndFa2AttentionGiveTheSameLossAndGradients) {
  model::cuda::StreamMemoryTracker t1, t2;
  model::cuda::CudaTransformerStep naive(tiny_cuda("naive"), t1, t1.stream(), kSeed, kInitStd);
  model::cuda::CudaTransformerStep fa2(tiny_cuda("fa2"), t2, t2.stream(), kSeed, kInitStd);
  const double l1 = naive.forward_backward(), l2 = fa2.forward_backward();
  const std::vector<float> g1 = naive.grads_to_host(), g2 = fa2.grads_to_host();
  const std::vector<float> w = naive.params_to_host();
  const double scale = loss_scale(naive.layout(), w.data(), g1.data());
  EXPECT_NEAR(l1, l2, 0.005 * scale);
  for (const model::ParamTensor& t : naive.layout().tensors) {
    const TensorError e = compare(g2.data() + t.offset, g1.data() + t.offset, t.count());
    EXPECT_LT(e.rel_fro, 0.03) << t.name;
  }
}

// lr 1e-3 as the host test (LossDecreasesOverTwentyAdamWStepsOnAFixedBatch): at GPT-2's 0.02
// a bf16 weight's ulp is ~1e-4, so each step moves weights by several ulps and the mean logit
// falls by ~5e-3 a step, far above the loss's bf16 noise (~1e-5).
TEST_F(CudaModelStepTest, LossDecreasesOverTwentyAdamWStepsOnAFixedBatch) {
  model::cuda::StreamMemoryTracker tracker;
  model::cuda::CudaTransformerStep step(tiny_cuda("fa2"), tracker, tracker.stream(), kSeed);
  model::AdamWSettings s;
  s.lr = 1e-3f;
  std::vector<double> losses;
  for (int i = 0; i < 20; ++i) {
    losses.push_back(step.forward_backward());
    step.optimizer_step(s);
  }
  for (std::size_t i = 1; i < losses.size(); ++i) EXPECT_LT(losses[i], losses[i - 1]) << i;
  EXPECT_LT(losses.back(), losses.front() - 0.05);
}

// AdamW on the device against model::adamw_update on the host from the same bf16 state: the
// same float32 formula (the parameter update reads m and v before they are rounded for
// storage), so the stored weight is the host's rounded to bf16, give or take one ulp where
// float32 operation order (fused multiply-adds) lands on a rounding boundary.
TEST_F(CudaModelStepTest, AdamWMatchesTheHostFormula) {
  model::cuda::StreamMemoryTracker tracker;
  model::cuda::CudaTransformerStep step(tiny_cuda("fa2"), tracker, tracker.stream(), kSeed,
                                        kInitStd);
  step.forward_backward();
  const std::vector<float> before = step.params_to_host();
  const std::vector<float> g = step.grads_to_host();
  std::vector<float> p = before, mm(p.size(), 0.0f), vv(p.size(), 0.0f);
  model::AdamWSettings s;
  s.lr = 1e-2f;
  step.optimizer_step(s);
  model::adamw_update(p.data(), g.data(), mm.data(), vv.data(), static_cast<std::int64_t>(p.size()),
                      s, 1);
  const std::vector<float> after = step.params_to_host();
  std::int64_t moved = 0, off_by_one_ulp = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const float want = round_bf16(p[i]);
    moved += after[i] != before[i];
    if (after[i] == want) continue;
    ++off_by_one_ulp;
    ASSERT_LE(std::abs(after[i] - want), std::abs(want) / 128.0f) << i;
  }
  EXPECT_GT(moved, static_cast<std::int64_t>(p.size()) / 2);  // lr 1e-2 moves most weights
  EXPECT_LT(off_by_one_ulp, static_cast<std::int64_t>(p.size()) / 100);
}

// The tracked peak of a step (after a warm-up step) against the plan, attention backends with
// and without recompute and optimizer state: equal, with nothing outside the plan.
TEST_F(CudaModelStepTest, TrackedPeakEqualsThePlannedPeak) {
  for (const char* backend : {"fa2", "naive", "standard"}) {
    for (bool recompute : {false, true}) {
      for (Optimizer opt : {Optimizer::adamw, Optimizer::none}) {
        ModelCase m = tiny_cuda(backend);
        m.recompute = recompute;
        m.optimizer = opt;
        SCOPED_TRACE(m.id());
        const ModelPlan plan = plan_model(m);
        EXPECT_GT(plan.device_step_bytes, 0);
        model::cuda::StreamMemoryTracker tracker;
        model::cuda::CudaTransformerStep step(m, tracker, tracker.stream(), kSeed);
        EXPECT_EQ(step.attention_scratch_bytes(), 0);
        EXPECT_EQ(tracker.current_bytes(), plan.persistent_bytes);
        step.forward_backward();
        step.optimizer_step(model::AdamWSettings{});
        tracker.reset_peak();
        step.forward_backward();
        step.optimizer_step(model::AdamWSettings{});
        EXPECT_EQ(tracker.peak_bytes(), plan.peak_bytes);
        // The gradients stay until the next step starts.
        EXPECT_EQ(tracker.current_bytes(), plan.persistent_bytes + plan.grad_bytes);
      }
    }
  }
}

// Through the runner, as `sweep` runs a case: a budget of the planned peak runs, one byte less
// is status oom with the bytes the failing allocation asked for; a model far beyond the
// device's memory is oom from the device itself, not a crash.
TEST_F(CudaModelStepTest, OutOfMemoryIsAStatusWithTheRequestedBytes) {
  ModelCase m = tiny_cuda("fa2");
  m.measure.warmup = 1;
  m.measure.min_samples = 1;
  const std::int64_t peak = plan_model(m).peak_bytes;
  const model::ModelResult fits = model::run_model_case(m, peak, 0);
  EXPECT_EQ(fits.status, "ok") << fits.reason;
  EXPECT_EQ(fits.peak_bytes, peak);
  const model::ModelResult tight = model::run_model_case(m, peak - 1, 0);
  EXPECT_EQ(tight.status, "oom") << tight.reason;
  EXPECT_GT(tight.requested_bytes, 0);

  ModelCase huge = tiny_cuda("fa2");
  huge.hidden = 4096;
  huge.heads = huge.H_kv = 32;
  huge.vocab = 16'000'000;  // embedding and LM head: 2 * 65.5G bf16 parameters
  const model::ModelResult big = model::run_model_case(huge, 0, 0);
  EXPECT_EQ(big.status, "oom") << big.reason;
  EXPECT_GT(big.requested_bytes, 0);
  // The device is usable afterwards.
  EXPECT_EQ(model::run_model_case(m, 0, 0).status, "ok");
}

TEST_F(CudaModelStepTest, RefusesWhatItCannotRunWithAReason) {
  ModelCase fp32 = tiny_cuda("fa2");
  fp32.dtype = DType::fp32;
  model::ModelResult r = model::run_model_case(fp32, 0, 0);
  EXPECT_EQ(r.status, "unsupported");
  EXPECT_NE(r.reason.find("fp16 or bf16"), std::string::npos) << r.reason;
  r = model::run_model_case(tiny_cuda("fa2", 4), 0, 0);  // D 16: fa2 has no such head dim
  EXPECT_EQ(r.status, "unsupported");
  EXPECT_NE(r.reason.find("attention fa2"), std::string::npos) << r.reason;
  r = model::run_model_case(tiny_cuda("cpu-naive"), 0, 0);
  EXPECT_EQ(r.status, "unsupported");
  EXPECT_NE(r.reason.find("runs on the host"), std::string::npos) << r.reason;
}

}  // namespace
}  // namespace fa2b
