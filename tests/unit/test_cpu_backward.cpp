// SPDX-License-Identifier: Apache-2.0
// The training modes on the CPU target, end to end through the case runner: cpu-naive's and
// cpu-flash's backward against the float64 reference on odd shapes, the predicted training
// peak against the tracked one, what the runner calls in each mode, and a deliberately wrong
// gradient that verification and the accuracy rule must catch.
#include <gtest/gtest.h>

#include <cstring>

#include "backends/backend.h"
#include "checks/checks.h"
#include "core/shape_algebra.h"
#include "runner/case_runner.h"
#include "runner/platform.h"
#include "small_cases.h"

namespace fa2b {
namespace {

Case train_case(const std::string& backend, std::int64_t H, std::int64_t H_kv, std::int64_t T_q,
                std::int64_t T_k, std::int64_t D, DType dt, bool causal, Layout layout, Mode mode) {
  return test_cases::small_case("train", backend, H, H_kv, T_q, T_k, D, dt, causal, layout, mode);
}

void expect_gradients_match(const CaseResult& r) {
  const Case& c = r.c;
  SCOPED_TRACE(c.id());
  ASSERT_EQ(r.status, Status::ok) << r.reason;
  ASSERT_TRUE(r.accuracy.grads_checked);
  EXPECT_EQ(r.accuracy.rows_checked, c.B * c.H * c.T_q);
  EXPECT_EQ(r.accuracy.key_rows_checked, c.B * c.H_kv * c.T_k);
  EXPECT_EQ(r.accuracy.nonfinite, 0);
  EXPECT_EQ(r.accuracy.grad_nonfinite, 0) << "a gradient element was left unwritten (NaN poison)";
  for (Grad g : kGrads) {
    const ErrorStats& e = r.accuracy.of(g);
    EXPECT_LE(e.rel_l2_err, test_cases::gradient_rel_tolerance(c.dtype))
        << to_string(g) << " max " << e.max_abs_err;
    EXPECT_LE(e.max_abs_err, 20 * test_cases::gradient_rel_tolerance(c.dtype)) << to_string(g);
  }
}

struct Shape {
  std::int64_t H, H_kv, T_q, T_k, D;
  bool causal;
  Layout layout;
};

// T = 1, 17, 100; T_q != T_k both ways (causal T_q > T_k leaves rows that see no key); GQA;
// bshd; head dims that are not multiples of the CPU kernels' 8 lanes.
const Shape kShapes[] = {
    {2, 2, 1, 1, 32, false, Layout::bhsd},    {2, 2, 17, 17, 40, true, Layout::bhsd},
    {2, 2, 100, 100, 64, true, Layout::bshd}, {4, 2, 17, 100, 24, true, Layout::bhsd},
    {4, 1, 100, 17, 32, true, Layout::bshd},  {2, 2, 100, 17, 16, false, Layout::bhsd},
    {6, 2, 65, 130, 8, false, Layout::bshd},  {2, 2, 1, 100, 32, true, Layout::bhsd},
};

TEST(CpuBackward, MatchesFloat64ReferenceOnOddShapes) {
  auto platform = make_host_platform();
  for (const char* name : {"cpu-naive", "cpu-flash"}) {
    auto backend = make_backend(name);
    for (const Shape& s : kShapes) {
      for (DType dt : {DType::fp32, DType::fp16, DType::bf16}) {
        const Case c =
            train_case(name, s.H, s.H_kv, s.T_q, s.T_k, s.D, dt, s.causal, s.layout, Mode::fwd_bwd);
        expect_gradients_match(run_case(c, *backend, *platform));
        EXPECT_EQ(platform->tracker().current_bytes(), 0) << "leaked tracked memory";
      }
    }
  }
}

TEST(CpuBackward, BwdModeMatchesReferenceToo) {
  auto platform = make_host_platform();
  for (const char* name : {"cpu-naive", "cpu-flash"}) {
    auto backend = make_backend(name);
    const Case c = train_case(name, 4, 2, 100, 17, 32, DType::fp16, true, Layout::bshd, Mode::bwd);
    const CaseResult r = run_case(c, *backend, *platform);
    expect_gradients_match(r);
    EXPECT_DOUBLE_EQ(r.flops, 2.5 * attention_flops(c));
  }
}

// Sliding windows (issue 20) against the float64 reference in both backends' backward:
// lengths 1, 17 and 1000, T_q != T_k both ways (keys that no row sees get zero dK and dV; rows
// that see no key contribute nothing), widths 0, one-sided, two-sided and wider than T, with
// and without causal.
TEST(CpuBackward, SlidingWindowsMatchFloat64Reference) {
  struct Lengths {
    std::int64_t T_q, T_k;
  };
  const Lengths lengths[] = {{1, 1}, {17, 17}, {1000, 1000}, {17, 100}, {100, 17}};
  const SlidingWindow windows[] = {{0, 0}, {3, -1}, {-1, 5}, {16, 16}, {2000, 2000}};
  const DType dtypes[] = {DType::fp32, DType::fp16, DType::bf16};
  auto platform = make_host_platform();
  for (const char* name : {"cpu-naive", "cpu-flash"}) {
    auto backend = make_backend(name);
    std::size_t n = 0;
    for (const Lengths& t : lengths)
      for (const SlidingWindow& w : windows) {
        const bool causal = n % 2 == 1;
        Case c = train_case(name, 2, 1, t.T_q, t.T_k, 32, dtypes[n % 3], causal,
                            n % 4 < 2 ? Layout::bhsd : Layout::bshd, Mode::fwd_bwd);
        c.window = w;
        if (t.T_q >= 1000) c.B = 1;  // every row and key is still checked; just fewer of them
        ++n;
        expect_gradients_match(run_case(c, *backend, *platform));
      }
  }
}

// Head dims that are multiples of 8 but not of 32 (issue 20), masked and not.
TEST(CpuBackward, HeadDimsMultipleOfEight) {
  auto platform = make_host_platform();
  for (const char* name : {"cpu-naive", "cpu-flash"}) {
    auto backend = make_backend(name);
    std::size_t n = 0;
    for (std::int64_t D : {8, 40, 80, 112, 200}) {
      Case c = train_case(name, 2, 1, 33, 40, D, n % 2 ? DType::bf16 : DType::fp16, n % 3 == 1,
                          Layout::bshd, Mode::fwd_bwd);
      if (n % 3 == 2) c.window = {5, 2};
      ++n;
      expect_gradients_match(run_case(c, *backend, *platform));
    }
  }
}

// Large enough that the sampled rows are a strict subset: dK/dV from two KV heads' key rows.
TEST(CpuBackward, SampledRowsOnALargerCase) {
  auto platform = make_host_platform();
  auto backend = make_backend("cpu-flash");
  Case c =
      train_case("cpu-flash", 4, 4, 300, 300, 64, DType::bf16, true, Layout::bhsd, Mode::fwd_bwd);
  c.measure.verify_rows = 64;
  const CaseResult r = run_case(c, *backend, *platform);
  ASSERT_EQ(r.status, Status::ok) << r.reason;
  EXPECT_GT(r.accuracy.key_rows_checked, 0);
  EXPECT_LE(r.accuracy.key_rows_checked, 64);
  for (Grad g : kGrads)
    EXPECT_LE(r.accuracy.of(g).rel_l2_err, test_cases::gradient_rel_tolerance(c.dtype));
}

TEST(CpuBackward, NaivePredictedPeakEqualsTrackedInEveryMode) {
  auto platform = make_host_platform();
  auto backend = make_backend("cpu-naive");
  for (Mode m : {Mode::fwd, Mode::bwd, Mode::fwd_bwd}) {
    const Case c = train_case("cpu-naive", 4, 2, 100, 70, 32, DType::bf16, true, Layout::bhsd, m);
    const CaseResult r = run_case(c, *backend, *platform);
    ASSERT_EQ(r.status, Status::ok) << r.reason;
    EXPECT_EQ(r.memory.peak_bytes, r.memory.predicted_bytes) << to_string(m);
    EXPECT_EQ(r.memory.saved_bytes, saved_bytes(c));
    if (m != Mode::fwd) {  // P in bf16 plus the LSE
      EXPECT_EQ(r.memory.saved_bytes, c.B * c.H * c.T_q * (c.T_k * 2 + 4));
    }
  }
}

// cpu-flash's per-thread tile scratch (the CPU's stand-in for shared memory, sized by the thread
// count) is part of the prediction on the CPU target (issue 43), so the tracked peak equals the
// prediction; the scratch must not grow with T.
TEST(CpuBackward, FlashTrainingPeakIsPredictedPlusConstantScratch) {
  auto platform = make_host_platform();
  auto backend = make_backend("cpu-flash");
  std::int64_t excess[2] = {0, 0};
  const std::int64_t lengths[2] = {64, 512};
  for (int i = 0; i < 2; ++i) {
    // H = 32: at least 32 work items per pass, so the thread count is the same at both T.
    Case c = train_case("cpu-flash", 32, 32, lengths[i], lengths[i], 16, DType::fp16, true,
                        Layout::bhsd, Mode::fwd_bwd);
    c.measure.verify_rows = 16;  // memory is the point here, not a full float64 check
    const CaseResult r = run_case(c, *backend, *platform);
    ASSERT_EQ(r.status, Status::ok) << r.reason;
    EXPECT_EQ(r.memory.peak_bytes, r.memory.predicted_bytes);
    excess[i] = r.memory.predicted_bytes - (io_bytes(c) + grad_io_bytes(c) + 4 * c.B * c.H * c.T_q);
  }
  EXPECT_GT(excess[0], 0);
  EXPECT_EQ(excess[0], excess[1]);
}

// Counts what the runner calls, to pin down each mode's contract.
class CountingBackend final : public Backend {
 public:
  std::string_view name() const override { return "cpu-flash"; }
  bool on_device() const override { return false; }
  Support supports(const Case& c, const TargetInfo& t) const override {
    return inner_->supports(c, t);
  }
  void prepare(const Case& c, const AttnParams& p, MemoryTracker& tracker) override {
    inner_->prepare(c, p, tracker);
  }
  void run(const AttnParams& p, void* s) override {
    ++forwards;
    inner_->run(p, s);
  }
  void run_backward(const AttnBwdParams& p, void* s) override {
    ++backwards;
    inner_->run_backward(p, s);
  }
  void release() override { inner_->release(); }
  int forwards = 0, backwards = 0;

 private:
  std::unique_ptr<Backend> inner_ = make_backend("cpu-flash");
};

TEST(CpuBackward, RunnerCallsPerMode) {
  auto platform = make_host_platform();
  struct Want {
    Mode mode;
    int forwards, backwards;
  };
  // warmup 1, exactly 2 samples, plus the first (verified) run: 4 timed regions.
  for (const Want& w : {Want{Mode::fwd, 4, 0}, Want{Mode::bwd, 1, 4}, Want{Mode::fwd_bwd, 4, 4}}) {
    CountingBackend backend;
    Case c = train_case("cpu-flash", 2, 2, 17, 17, 16, DType::fp16, true, Layout::bhsd, w.mode);
    c.measure.warmup = 1;
    c.measure.min_samples = c.measure.max_samples = 2;
    const CaseResult r = run_case(c, backend, *platform);
    ASSERT_EQ(r.status, Status::ok) << r.reason;
    EXPECT_EQ(backend.forwards, w.forwards) << to_string(w.mode);
    EXPECT_EQ(backend.backwards, w.backwards) << to_string(w.mode);
    EXPECT_EQ(r.accuracy.grads_checked, w.mode != Mode::fwd);
  }
}

// cpu-flash with one wrong element of dV: the kind of bug verification exists to catch.
class WrongGradBackend final : public Backend {
 public:
  std::string_view name() const override { return "wrong-grad"; }
  bool on_device() const override { return false; }
  Support supports(const Case& c, const TargetInfo& t) const override {
    return inner_->supports(c, t);
  }
  void prepare(const Case& c, const AttnParams& p, MemoryTracker& tracker) override {
    inner_->prepare(c, p, tracker);
  }
  void run(const AttnParams& p, void* s) override { inner_->run(p, s); }
  void run_backward(const AttnBwdParams& p, void* s) override {
    inner_->run_backward(p, s);
    float x;  // fp32 cases only: element 0 of dV is off by 0.5
    std::memcpy(&x, p.d_v, sizeof x);
    x += 0.5f;
    std::memcpy(p.d_v, &x, sizeof x);
  }
  void release() override { inner_->release(); }

 private:
  std::unique_ptr<Backend> inner_ = make_backend("cpu-flash");
};

TEST(CpuBackward, AWrongGradientIsCaughtByVerificationAndTheAccuracyRule) {
  auto platform = make_host_platform();
  auto naive = make_backend("cpu-naive");
  auto flash = make_backend("cpu-flash");
  WrongGradBackend wrong;
  auto shape = [](const std::string& name) {
    return train_case(name, 2, 2, 33, 33, 16, DType::fp32, true, Layout::bhsd, Mode::fwd_bwd);
  };
  std::vector<CaseResult> results = {run_case(shape("cpu-naive"), *naive, *platform),
                                     run_case(shape("cpu-flash"), *flash, *platform),
                                     run_case(shape("wrong-grad"), wrong, *platform)};
  for (const CaseResult& r : results) ASSERT_EQ(r.status, Status::ok) << r.reason;
  EXPECT_GT(results[2].accuracy.of(Grad::dv).max_abs_err, 0.4);
  EXPECT_LT(results[2].accuracy.of(Grad::dq).max_abs_err, 1e-5) << "only dV was made wrong";

  auto rule = [](const std::string& metric, const std::string& backend) {
    CheckSpec s;
    s.name = metric + "_" + backend;
    s.kind = "accuracy_rule";
    s.metric = metric;
    s.baseline = "cpu-naive";
    s.select.match["backend"] = {backend};
    return s;
  };
  const std::vector<Verdict> v =
      evaluate_checks({rule("max_abs_err_dv", "cpu-flash"), rule("max_abs_err_dk", "cpu-flash"),
                       rule("max_abs_err_dv", "wrong-grad")},
                      results);
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0].verdict, VerdictKind::pass) << v[0].detail;
  EXPECT_EQ(v[1].verdict, VerdictKind::pass) << v[1].detail;
  EXPECT_EQ(v[2].verdict, VerdictKind::fail) << v[2].detail;
}

}  // namespace
}  // namespace fa2b
