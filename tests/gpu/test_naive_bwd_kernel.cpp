// SPDX-License-Identifier: Apache-2.0
// Naive (materialising) backward against the float64 reference (bwd_reference.h): every
// (dtype, D) at T = 1, 17, 1000 causal and not, and under sliding windows, T_q != T_k both
// ways, T = 4097, head dims that are multiples of 8 but not of 32, bshd, GQA (H_kv = 2 and 1),
// a B*H_kv beyond the grid's y limit, and the support rules. O and the saved
// P come from naive_attention; both workspaces are poisoned with NaN bytes first, so a stage
// reading P, dP or dS that nobody wrote shows, as do unwritten gradients. Every test skips
// when no CUDA device is present.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <string>

#include "bwd_reference.h"
#include "gpu_available.h"
#include "naive/naive_attn.h"
#include "naive/naive_bwd.h"

namespace fa2b {
namespace {

using bwd_test::DtypeDim;
using bwd_test::Shape;

void run_and_check(const Shape& s) {
  SCOPED_TRACE(bwd_test::describe(s));
  bwd_test::Problem pr;
  bwd_test::make_problem(s, pr);
  if (::testing::Test::HasFatalFailure()) return;
  const AttnParams& f = pr.p.fwd;
  std::string why;
  ASSERT_TRUE(naive_bwd_supported(pr.p, &why)) << why;
  const std::size_t fwd_bytes = naive_workspace_bytes(f), bwd_bytes = naive_bwd_workspace_bytes(f);
  bwd_test::DevBuf fwd_ws(fwd_bytes), bwd_ws(bwd_bytes);
  ASSERT_TRUE(fwd_ws.ptr && bwd_ws.ptr);
  ASSERT_EQ(cudaMemset(fwd_ws.ptr, 0xFF, fwd_bytes), cudaSuccess);
  ASSERT_EQ(cudaMemset(bwd_ws.ptr, 0xFF, bwd_bytes), cudaSuccess);
  ASSERT_EQ(naive_attention(f, fwd_ws.ptr, nullptr), cudaSuccess);
  const void* saved_P = static_cast<const char*>(fwd_ws.ptr) + naive_saved_p_offset(f);
  ASSERT_EQ(naive_attention_bwd(pr.p, saved_P, bwd_ws.ptr, nullptr), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  bwd_test::check_grads(pr);
}

class NaiveBwdSweep : public ::testing::TestWithParam<DtypeDim> {
 protected:
  void SetUp() override { FA2B_REQUIRE_GPU(); }
};

TEST_P(NaiveBwdSweep, OddLengthsBothMasks) {
  bwd_test::odd_length_sweep(GetParam().dtype, GetParam().D, run_and_check);
}

INSTANTIATE_TEST_SUITE_P(AllDims, NaiveBwdSweep, ::testing::ValuesIn(bwd_test::all_dtype_dims()),
                         bwd_test::sweep_name);
INSTANTIATE_TEST_SUITE_P(MultipleOf8Dims, NaiveBwdSweep,
                         ::testing::ValuesIn(bwd_test::multiple_of_8_dtype_dims()),
                         bwd_test::sweep_name);

class NaiveBwd : public ::testing::Test {
 protected:
  void SetUp() override { FA2B_REQUIRE_GPU(); }
};

TEST_F(NaiveBwd, LongSequence) {
  if (4097 > bwd_test::max_test_length()) GTEST_SKIP() << "FA2BENCH_TEST_MAX_T";
  for (bool causal : {false, true}) {
    Shape s;
    s.dtype = DType::bf16, s.D = 64, s.causal = causal, s.H = s.H_kv = 1;
    s.T_q = s.T_k = 4097;
    run_and_check(s);
  }
}

// Sliding windows: naive's tiles do not depend on D, so a few (dtype, D) cover them, one of
// them not a multiple of 32. The workspaces are poisoned, so the S and dP tiles the QK GEMM
// skips before a window must never be read as values.
TEST_F(NaiveBwd, SlidingWindows) {
  bwd_test::window_sweep(DType::fp16, 64, run_and_check);
  bwd_test::window_sweep(DType::bf16, 128, run_and_check);
  bwd_test::window_sweep(DType::bf16, 40, run_and_check);
}

TEST_F(NaiveBwd, BshdLayout) {
  for (const Shape& s : bwd_test::bshd_shapes()) run_and_check(s);
}

TEST_F(NaiveBwd, GroupedQueryHeads) {
  for (const Shape& s : bwd_test::gqa_shapes()) run_and_check(s);
}

// B*H = B*H_kv = 66000 > 65535: every stage loops over the (batch, head) pairs its grid's y
// dimension cannot hold.
TEST_F(NaiveBwd, MoreHeadsThanGridY) {
  Shape s;
  s.dtype = DType::fp16, s.D = 32, s.B = 33000, s.H = s.H_kv = 2, s.T_q = s.T_k = 3;
  run_and_check(s);
}

TEST_F(NaiveBwd, SupportRulesAndWorkspace) {
  AttnBwdParams p;
  AttnParams& f = p.fwd;
  f.B = 3, f.H = 4, f.H_kv = 2, f.T_q = 5, f.T_k = 9, f.D = 64;
  f.dtype = KernelDType::bf16;
  std::string why;
  EXPECT_TRUE(naive_bwd_supported(p, &why)) << why;
  // ld = 16: dP 3*4*5*16*4 = 3840 bytes (a multiple of 256), dS 1920 -> 2048.
  EXPECT_EQ(naive_bwd_workspace_bytes(f), 3840u + 2048u);
  EXPECT_EQ(naive_saved_p_offset(f), 3840u);
  p.d_q = reinterpret_cast<void*>(std::uintptr_t{8});
  EXPECT_FALSE(naive_bwd_supported(p, &why));
  EXPECT_NE(why.find("aligned"), std::string::npos) << why;
  p.d_q = nullptr;
  f.dtype = KernelDType::fp32;
  EXPECT_FALSE(naive_bwd_supported(p, &why));
  EXPECT_NE(why.find("fp32"), std::string::npos) << why;
  f.dtype = KernelDType::fp16;
  f.D = 80;  // a multiple of 8: supported since issue 20
  EXPECT_TRUE(naive_bwd_supported(p, &why)) << why;
  f.D = 84;
  EXPECT_FALSE(naive_bwd_supported(p, &why));
  EXPECT_EQ(naive_attention_bwd(p, nullptr, nullptr, nullptr), cudaErrorInvalidValue);
}

}  // namespace
}  // namespace fa2b
