// SPDX-License-Identifier: Apache-2.0
// The runner on a CUDA device: exact memory accounting, budgeted OOM, unsupported cases.
#include <gtest/gtest.h>

#include "backends/backend.h"
#include "core/shape_algebra.h"
#include "gpu_available.h"
#include "runner/case_runner.h"
#include "runner/platform.h"
#include "runner_case.h"

namespace fa2b {
namespace {

Case gpu_case(const std::string& backend, std::int64_t T, DType dt = DType::bf16) {
  Case c = gpu_runner_case(backend, 2, 4, 4, T, T);
  c.dtype = dt;
  return c;
}

std::unique_ptr<Platform> cuda_platform(std::int64_t budget = 0) {
  std::string why;
  auto p = make_cuda_platform(0, budget, &why);
  EXPECT_NE(p, nullptr) << why;
  return p;
}

TEST(GpuRunner, TrackedPeakIsExactlyTheKnownBuffers) {
  FA2B_REQUIRE_GPU();
  auto platform = cuda_platform();
  for (const char* name : {"fa2", "naive"}) {
    auto backend = make_backend(name);
    const Case c = gpu_case(name, 1000);
    const CaseResult r = run_case(c, *backend, *platform);
    ASSERT_EQ(r.status, Status::ok) << name << ": " << r.reason;
    EXPECT_EQ(r.memory.peak_bytes - r.memory.workspace_bytes, io_bytes(c)) << name;
    if (std::string(name) == "fa2") {
      EXPECT_EQ(r.memory.workspace_bytes, 0);
    } else {
      // S in float32 and P in bf16, each rounded up to 256 bytes.
      const std::int64_t scores = c.B * c.H * c.T_q * c.T_k;
      EXPECT_GE(r.memory.workspace_bytes, scores * 6);
      EXPECT_LE(r.memory.workspace_bytes, scores * 6 + 512);
    }
    EXPECT_EQ(r.memory.peak_bytes, r.memory.predicted_bytes) << name;
    EXPECT_LT(r.accuracy.rel_l2_err, 1e-2) << name;
    EXPECT_EQ(r.accuracy.nonfinite, 0) << name;
    EXPECT_EQ(platform->tracker().current_bytes(), 0) << name << " leaked device memory";
  }
}

TEST(GpuRunner, BudgetedOomMidSweepLeavesLaterCasesUnaffected) {
  FA2B_REQUIRE_GPU();
  const Case big = gpu_case("naive", 4096);
  auto platform = cuda_platform(io_bytes(big) + (1 << 20));
  auto naive = make_backend("naive");
  auto fa2 = make_backend("fa2");
  const CaseResult before = run_case(gpu_case("fa2", 4096), *fa2, *platform);
  const CaseResult oom = run_case(big, *naive, *platform);
  const CaseResult after = run_case(gpu_case("fa2", 4096), *fa2, *platform);
  ASSERT_EQ(before.status, Status::ok) << before.reason;
  EXPECT_EQ(oom.status, Status::oom) << oom.reason;
  EXPECT_GT(oom.memory.requested_bytes, 0);
  ASSERT_EQ(after.status, Status::ok) << after.reason;
  EXPECT_EQ(after.memory.peak_bytes, before.memory.peak_bytes);
  EXPECT_EQ(after.accuracy.max_abs_err, before.accuracy.max_abs_err);
  EXPECT_EQ(platform->tracker().current_bytes(), 0);
}

TEST(GpuRunner, Fp32IsUnsupportedWithAReason) {
  FA2B_REQUIRE_GPU();
  auto platform = cuda_platform();
  for (const char* name : {"fa2", "naive"}) {
    auto backend = make_backend(name);
    const CaseResult r = run_case(gpu_case(name, 64, DType::fp32), *backend, *platform);
    EXPECT_EQ(r.status, Status::unsupported);
    EXPECT_EQ(r.reason, std::string("fp32 is not supported by ") + name + " (use fp16 or bf16)");
  }
}

TEST(GpuRunner, UnsupportedHeadDimIsNotAnError) {
  FA2B_REQUIRE_GPU();
  auto platform = cuda_platform();
  auto backend = make_backend("fa2");
  Case c = gpu_case("fa2", 64);
  c.D = 100;
  const CaseResult r = run_case(c, *backend, *platform);
  EXPECT_EQ(r.status, Status::unsupported);
  EXPECT_FALSE(r.reason.empty());
}

}  // namespace
}  // namespace fa2b
