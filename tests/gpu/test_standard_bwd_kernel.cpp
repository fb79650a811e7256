// SPDX-License-Identifier: Apache-2.0
// Standard (cuBLAS) backward against the float64 reference (bwd_reference.h): every
// (dtype, D in 32..256 by 32) at T = 1, 17, 1000 causal and not, T_q != T_k both ways, a head
// dim that is not a multiple of 8, bshd, GQA (H_kv = 2 and 1), and the workspace formula.
// O and the saved P come from standard_attention_fwd; S, P and the backward's workspace are
// poisoned with NaN bytes first. Every test skips when no CUDA device is present.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <string>

#include "bwd_reference.h"
#include "gpu_available.h"
#include "standard/standard_bwd.h"
#include "standard/standard_fwd.h"

namespace fa2b {
namespace {

using bwd_test::DtypeDim;
using bwd_test::Shape;

std::string failure(const StandardStatus& st) {
  return std::string(st.step != nullptr ? st.step : "?") + ": cuBLAS " +
         cublasGetStatusString(st.cublas) + ", CUDA " + cudaGetErrorString(st.cuda);
}

void run_and_check(const Shape& s, cublasHandle_t handle) {
  SCOPED_TRACE(bwd_test::describe(s));
  bwd_test::Problem pr;
  bwd_test::make_problem(s, pr);
  if (::testing::Test::HasFatalFailure()) return;
  const AttnParams& f = pr.p.fwd;
  std::string why;
  ASSERT_TRUE(standard_bwd_supported(pr.p, &why)) << why;
  const std::size_t s_bytes = standard_s_bytes(f), p_bytes = standard_p_bytes(f),
                    ws_bytes = standard_bwd_workspace_bytes(f);
  bwd_test::DevBuf S(s_bytes), P(p_bytes), ws(ws_bytes);
  ASSERT_TRUE(S.ptr && P.ptr && ws.ptr);
  ASSERT_EQ(cudaMemset(S.ptr, 0xFF, s_bytes), cudaSuccess);
  ASSERT_EQ(cudaMemset(P.ptr, 0xFF, p_bytes), cudaSuccess);
  ASSERT_EQ(cudaMemset(ws.ptr, 0xFF, ws_bytes), cudaSuccess);
  const StandardStatus fwd = standard_attention_fwd(f, static_cast<float*>(S.ptr), P.ptr, handle);
  ASSERT_TRUE(fwd.ok()) << failure(fwd);
  const StandardStatus bwd = standard_attention_bwd(pr.p, P.ptr, ws.ptr, handle);
  ASSERT_TRUE(bwd.ok()) << failure(bwd);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  bwd_test::check_grads(pr);
}

// A cuBLAS handle on the default stream with cuBLAS's own workspace, per test.
class WithCublas {
 protected:
  void create() { ASSERT_EQ(cublasCreate(&handle_), CUBLAS_STATUS_SUCCESS); }
  void destroy() {
    if (handle_ != nullptr) (void)cublasDestroy(handle_);
    handle_ = nullptr;
  }
  cublasHandle_t handle_ = nullptr;
};

class StandardBwdSweep : public ::testing::TestWithParam<DtypeDim>, protected WithCublas {
 protected:
  void SetUp() override {
    FA2B_REQUIRE_GPU();
    create();
  }
  void TearDown() override { destroy(); }
};

TEST_P(StandardBwdSweep, OddLengthsBothMasks) {
  bwd_test::odd_length_sweep(GetParam().dtype, GetParam().D,
                             [this](const Shape& s) { run_and_check(s, handle_); });
}

INSTANTIATE_TEST_SUITE_P(AllDims, StandardBwdSweep, ::testing::ValuesIn(bwd_test::all_dtype_dims()),
                         bwd_test::sweep_name);

class StandardBwd : public ::testing::Test, protected WithCublas {
 protected:
  void SetUp() override {
    FA2B_REQUIRE_GPU();
    create();
  }
  void TearDown() override { destroy(); }
};

// cuBLAS and our scalar kernels need no 16-byte rows: D = 36 leaves every row 8-byte aligned.
TEST_F(StandardBwd, HeadDimNotMultipleOf8) {
  for (bool causal : {false, true}) {
    Shape s;
    s.dtype = DType::bf16, s.D = 36, s.causal = causal, s.B = 2, s.T_q = 45, s.T_k = 61;
    run_and_check(s, handle_);
  }
}

TEST_F(StandardBwd, BshdLayout) {
  for (const Shape& s : bwd_test::bshd_shapes()) run_and_check(s, handle_);
}

TEST_F(StandardBwd, GroupedQueryHeads) {
  for (const Shape& s : bwd_test::gqa_shapes()) run_and_check(s, handle_);
}

TEST_F(StandardBwd, SupportRulesAndWorkspace) {
  AttnBwdParams p;
  AttnParams& f = p.fwd;
  f.B = 3, f.H = 4, f.H_kv = 2, f.T_q = 5, f.T_k = 9, f.D = 64;
  f.q_row_stride = f.k_row_stride = f.v_row_stride = f.o_row_stride = 64;
  f.dtype = KernelDType::fp16;
  std::string why;
  EXPECT_TRUE(standard_bwd_supported(p, &why)) << why;
  // n = 540: dP 2160 -> 2304 bytes, dS 1080 -> 1280; GQA: two accumulators of
  // 3*2*9*64*4 = 13824 bytes (a multiple of 256).
  EXPECT_EQ(standard_bwd_workspace_bytes(f), 2304u + 1280u + 2 * 13824u);
  f.H_kv = 4;
  EXPECT_EQ(standard_bwd_workspace_bytes(f), 2304u + 1280u);
  f.dtype = KernelDType::fp32;
  EXPECT_FALSE(standard_bwd_supported(p, &why));
  f.dtype = KernelDType::bf16;
  f.H_kv = 3;
  EXPECT_FALSE(standard_bwd_supported(p, &why));
  f.H_kv = 2;
  f.k_row_stride = 32;  // shorter than a row
  EXPECT_FALSE(standard_bwd_supported(p, &why));
  EXPECT_FALSE(standard_attention_bwd(p, nullptr, nullptr, handle_).ok());
}

}  // namespace
}  // namespace fa2b
