// SPDX-License-Identifier: Apache-2.0
// The case runner on the host platform: statuses, memory accounting, verification.
#include <gtest/gtest.h>

#include "backends/backend.h"
#include "core/shape_algebra.h"
#include "runner/case_runner.h"
#include "runner/platform.h"
#include "runner/sweep_runner.h"

namespace fa2b {
namespace {

Case small_case(const std::string& backend, std::int64_t T) {
  Case c;
  c.sweep = "test";
  c.backend = backend;
  c.role = backend;
  c.B = 1;
  c.H = 2;
  c.H_kv = 2;
  c.T_q = c.T_k = T;
  c.D = 32;
  c.dtype = DType::fp16;
  c.causal = true;
  c.measure.warmup = 0;
  c.measure.min_samples = 2;
  c.measure.max_samples = 3;
  return c;
}

TEST(Runner, CpuFlashCaseIsVerifiedAndTimed) {
  auto platform = make_host_platform();
  auto backend = make_backend("cpu-flash");
  ASSERT_NE(backend, nullptr);
  const CaseResult r = run_case(small_case("cpu-flash", 17), *backend, *platform);
  ASSERT_EQ(r.status, Status::ok) << r.reason;
  EXPECT_TRUE(r.accuracy.checked);
  EXPECT_EQ(r.accuracy.rows_checked, 2 * 17);  // small case: every row
  EXPECT_EQ(r.accuracy.nonfinite, 0);
  EXPECT_LT(r.accuracy.max_abs_err, 2e-3);
  EXPECT_GE(r.time.n, 2);
  EXPECT_GT(r.time.median, 0.0);
  EXPECT_GT(r.tflops, 0.0);
  EXPECT_EQ(platform->tracker().current_bytes(), 0) << "the case leaked tracked memory";
}

// cpu-flash that reports what it prepared through Backend::info().
class InfoBackend final : public Backend {
 public:
  std::string_view name() const override { return "cpu-flash"; }
  bool on_device() const override { return false; }
  Support supports(const Case& c, const TargetInfo& t) const override {
    return flash_->supports(c, t);
  }
  void prepare(const Case& c, const AttnParams& p, MemoryTracker& tracker) override {
    flash_->prepare(c, p, tracker);
    prepared_ = "prepared T=" + std::to_string(p.T_q);
  }
  std::string info() const override { return prepared_; }
  void run(const AttnParams& p, void* stream) override { flash_->run(p, stream); }
  void release() override {
    flash_->release();
    prepared_.clear();
  }

 private:
  std::unique_ptr<Backend> flash_ = make_backend("cpu-flash");
  std::string prepared_;
};

TEST(Runner, BackendInfoIsReadAfterPrepare) {
  auto platform = make_host_platform();
  InfoBackend backend;
  const CaseResult r = run_case(small_case("cpu-flash", 17), backend, *platform);
  ASSERT_EQ(r.status, Status::ok) << r.reason;
  EXPECT_EQ(r.backend_info, "prepared T=17");
  // A backend without info() leaves it empty.
  auto plain = make_backend("cpu-flash");
  EXPECT_EQ(run_case(small_case("cpu-flash", 17), *plain, *platform).backend_info, "");
}

TEST(Runner, NaivePeakIsInputsPlusScoreAndProbabilityMatrices) {
  auto platform = make_host_platform();
  auto backend = make_backend("cpu-naive");
  const Case c = small_case("cpu-naive", 64);
  const CaseResult r = run_case(c, *backend, *platform);
  ASSERT_EQ(r.status, Status::ok) << r.reason;
  const std::int64_t scores = c.B * c.H * c.T_q * c.T_k;
  EXPECT_EQ(r.memory.workspace_bytes, scores * 4 + scores * 2);
  EXPECT_EQ(r.memory.peak_bytes, io_bytes(c) + scores * 6);
  EXPECT_EQ(r.memory.peak_bytes, r.memory.predicted_bytes);
}

TEST(Runner, BudgetOomIsRecordedAndTheNextCaseIsUnaffected) {
  auto platform = make_host_platform();
  auto naive = make_backend("cpu-naive");
  auto flash = make_backend("cpu-flash");
  const Case big = small_case("cpu-naive", 512);
  // Enough for the inputs and cpu-flash's per-thread tiles, not for naive's 2 MiB of S.
  platform->tracker().set_budget(io_bytes(big) + (1 << 20));
  const CaseResult oom = run_case(big, *naive, *platform);
  EXPECT_EQ(oom.status, Status::oom);
  EXPECT_GE(oom.memory.requested_bytes, big.B * big.H * 512 * 512 * 2)
      << "the failing allocation is the score or probability matrix";
  EXPECT_NE(oom.reason.find("out of memory"), std::string::npos);
  EXPECT_EQ(platform->tracker().current_bytes(), 0);
  const CaseResult after = run_case(small_case("cpu-flash", 512), *flash, *platform);
  EXPECT_EQ(after.status, Status::ok) << after.reason;
}

TEST(Runner, GpuBackendsMapToCpuCounterpartsOnTheCpuTarget) {
  std::vector<Case> cases = {small_case("fa2", 8), small_case("naive", 8)};
  const auto mapped = cases_for_target(cases, "cpu");
  EXPECT_EQ(mapped[0].backend, "cpu-flash");
  EXPECT_EQ(mapped[0].role, "fa2");
  EXPECT_EQ(mapped[1].backend, "cpu-naive");
  EXPECT_EQ(mapped[1].id(), "cpu-naive/B1-H2-T8-D32/fp16/causal");
  EXPECT_EQ(cases_for_target(cases, "cuda")[0].backend, "fa2");
}

}  // namespace
}  // namespace fa2b
