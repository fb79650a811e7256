// SPDX-License-Identifier: Apache-2.0
// fa3 (Hopper, wgmma) backward kernel against the float64 reference (bwd_reference.h), on the
// shapes of the fa2 backward test: every (dtype, D) at T = 1, 17, 1000 causal and not; T =
// 4097; T_q != T_k both ways; bshd; grouped-query heads. O and LSE come from the fa3 forward;
// dQ, dK, dV and the workspace are poisoned with NaN bytes first. Then the runner's view: both
// training modes, with the tracked peak against the predicted one. Skips without an sm_90 GPU
// or without the sm_90a kernels in the build.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backends/backend.h"
#include "bwd_reference.h"
#include "fa3/fa3_bwd.h"
#include "fa3/fa3_bwd_traits.h"
#include "fa3/fa3_fwd.h"
#include "runner/case_runner.h"
#include "runner/platform.h"
#include "runner_case.h"
#include "sm90_available.h"

namespace fa2b {
namespace {

using bwd_test::DtypeDim;
using bwd_test::Shape;

const bwd_test::FlashKernels kFa3{fa3_bwd_supported, fa3_bwd_workspace_bytes, fa3_fwd, fa3_bwd};

void run_and_check(const Shape& s) {
  bwd_test::run_flash_and_check(kFa3, s);
}

class Fa3BwdSweep : public ::testing::TestWithParam<DtypeDim> {
 protected:
  void SetUp() override { FA3_REQUIRE_SM90(); }
};

TEST_P(Fa3BwdSweep, OddLengthsBothMasks) {
  bwd_test::odd_length_sweep(GetParam().dtype, GetParam().D, run_and_check);
}

INSTANTIATE_TEST_SUITE_P(AllDims, Fa3BwdSweep,
                         ::testing::ValuesIn(sweep_params::dtype_dims_of<Fa3BwdHeadDims>()),
                         bwd_test::sweep_name);

class Fa3Bwd : public ::testing::Test {
 protected:
  void SetUp() override { FA3_REQUIRE_SM90(); }
};

TEST_F(Fa3Bwd, LongSequence) {
  if (4097 > bwd_test::max_test_length()) GTEST_SKIP() << "FA2BENCH_TEST_MAX_T";
  for (int D : Fa3BwdHeadDims::kValues) {
    for (bool causal : {false, true}) {
      Shape s;
      s.dtype = DType::bf16, s.D = D, s.causal = causal, s.H = s.H_kv = 1;
      s.T_q = s.T_k = 4097;
      run_and_check(s);
    }
  }
}

TEST_F(Fa3Bwd, BshdLayout) {
  for (const Shape& s : bwd_test::bshd_shapes()) {
    if (fa3_bwd_head_dim_supported(s.D)) run_and_check(s);
  }
}

TEST_F(Fa3Bwd, GroupedQueryHeads) {
  for (const Shape& s : bwd_test::gqa_shapes()) {
    if (fa3_bwd_head_dim_supported(s.D)) run_and_check(s);
  }
}

// The runner's view of both training modes: the gradients checked and finite, and the tracked
// peak exactly the planned one (the backward's workspace included), nothing left allocated.
TEST_F(Fa3Bwd, TrainingModesThroughTheRunnerWithTheExactPeak) {
  std::string why;
  auto platform = make_cuda_platform(0, 0, &why);
  ASSERT_NE(platform, nullptr) << why;
  auto backend = make_backend("fa3");
  ASSERT_NE(backend, nullptr);
  std::vector<Case> cases;
  for (bool causal : {false, true}) {
    Case c = gpu_runner_case("fa3", 2, 4, 4, 1000, 1000);
    c.causal = causal;
    cases.push_back(c);
    c = gpu_runner_case("fa3", 1, 4, 2, 300, 517);  // GQA, T_q != T_k, bshd
    c.D = 64, c.dtype = DType::fp16, c.causal = causal, c.layout = Layout::bshd;
    cases.push_back(c);
    c = gpu_runner_case("fa3", 1, 4, 2, 517, 300);  // the head-dim split kernel, T_q > T_k
    c.D = 256, c.causal = causal;
    cases.push_back(c);
  }
  for (Case c : cases) {
    for (Mode m : {Mode::bwd, Mode::fwd_bwd}) {
      c.mode = m;
      const CaseResult r = run_case(c, *backend, *platform);
      ASSERT_EQ(r.status, Status::ok) << c.id() << ": " << r.reason;
      EXPECT_TRUE(r.accuracy.grads_checked) << c.id();
      EXPECT_EQ(r.accuracy.grad_nonfinite, 0) << c.id();
      EXPECT_EQ(r.accuracy.nonfinite, 0) << c.id();
      const double tol = c.dtype == DType::bf16 ? 2e-2 : 3e-3;  // bwd_reference.h's bounds
      for (Grad g : kGrads) {
        EXPECT_LE(r.accuracy.of(g).rel_l2_err, tol) << c.id() << " " << to_string(g);
      }
      EXPECT_EQ(r.memory.peak_bytes, r.memory.predicted_bytes) << c.id();
      EXPECT_EQ(platform->tracker().current_bytes(), 0) << c.id() << " leaked";
    }
  }
}

// Host code: runs without a GPU.
TEST(Fa3BwdSupport, Rules) {
  AttnParams p;
  p.B = p.H = p.H_kv = p.T_q = p.T_k = 1;
  p.D = 128;
  p.dtype = KernelDType::bf16;
  std::string why;
  if (!fa3_built()) {
    EXPECT_FALSE(fa3_bwd_supported(p, &why));
    return;
  }
  // Every head dim of the forward has a backward (D = 256 by the head-dim split).
  for (int d : Fa3HeadDims::kValues) {
    p.D = d;
    EXPECT_TRUE(fa3_bwd_supported(p, &why)) << d << ": " << why;
  }
  p.D = 128;
  // A packed batch the forward runs: the backward refuses it (its maps span dense rows only).
  const int cu_seqlens[2] = {0, 1};
  p.cu_seqlens_q = p.cu_seqlens_k = cu_seqlens;
  p.total_q = p.total_k = 1;
  EXPECT_TRUE(fa3_fwd_supported(p, &why)) << why;
  EXPECT_FALSE(fa3_bwd_supported(p, &why));
  EXPECT_NE(why.find("no variable-length backward"), std::string::npos) << why;
  p.cu_seqlens_q = p.cu_seqlens_k = nullptr;
  p.H = p.H_kv = 70000;
  EXPECT_FALSE(fa3_bwd_supported(p, &why));
  EXPECT_NE(why.find("H_kv"), std::string::npos) << why;
  p.B = 3, p.H = 4, p.H_kv = 2, p.T_q = 5, p.D = 64;
  EXPECT_EQ(fa3_bwd_workspace_bytes(p), 4u * 3 * 4 * (5 * 64 + 2 * 64));  // rows padded to 64
}

}  // namespace
}  // namespace fa2b
