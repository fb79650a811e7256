// SPDX-License-Identifier: Apache-2.0
// FA2 backward kernel against a float64 reference (bwd_reference.h): every (dtype, D) at T =
// 1, 17, 1000 causal and not, and under sliding windows; T = 4097; T_q != T_k both ways
// (bottom-right causal, rows that see no key); bshd; grouped-query heads (dK, dV summed over a
// group); head dims padded into the next tile. O and LSE come from our
// forward; dQ, dK, dV and the workspace are poisoned with NaN bytes first. Every test skips
// when no CUDA device is present.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "bwd_reference.h"
#include "fa2/fa2_bwd.h"
#include "fa2/fa2_fwd.h"
#include "fa2/fa2_padded_head_dims.h"
#include "gpu_available.h"

namespace fa2b {
namespace {

using bwd_test::DtypeDim;
using bwd_test::Shape;

const bwd_test::FlashKernels kFa2{fa2_bwd_supported, fa2_bwd_workspace_bytes, fa2_fwd, fa2_bwd};

void run_and_check(const Shape& s) {
  bwd_test::run_flash_and_check(kFa2, s);
}

class Fa2BwdSweep : public ::testing::TestWithParam<DtypeDim> {
 protected:
  void SetUp() override { FA2B_REQUIRE_GPU(); }
};

TEST_P(Fa2BwdSweep, OddLengthsBothMasks) {
  bwd_test::odd_length_sweep(GetParam().dtype, GetParam().D, run_and_check);
}

// Windows on every backward tile (each D has its own key and query block sizes).
TEST_P(Fa2BwdSweep, SlidingWindows) {
  bwd_test::window_sweep(GetParam().dtype, GetParam().D, run_and_check);
}

INSTANTIATE_TEST_SUITE_P(AllDims, Fa2BwdSweep, ::testing::ValuesIn(bwd_test::fa2_dtype_dims()),
                         bwd_test::sweep_name);

class Fa2Bwd : public ::testing::Test {
 protected:
  void SetUp() override { FA2B_REQUIRE_GPU(); }
};

TEST_F(Fa2Bwd, LongSequence) {
  if (4097 > bwd_test::max_test_length()) GTEST_SKIP() << "FA2BENCH_TEST_MAX_T";
  for (int D : {64, 128}) {
    for (bool causal : {false, true}) {
      Shape s;
      s.dtype = DType::bf16, s.D = D, s.causal = causal, s.H = s.H_kv = 1;
      s.T_q = s.T_k = 4097;
      run_and_check(s);
    }
  }
}

// A window much smaller than T: each key block visits a few query blocks of the 4097 rows.
TEST_F(Fa2Bwd, SmallWindowOnALongSequence) {
  if (4097 > bwd_test::max_test_length()) GTEST_SKIP() << "FA2BENCH_TEST_MAX_T";
  for (bool causal : {false, true}) {
    Shape s;
    s.dtype = DType::bf16, s.D = 128, s.causal = causal, s.H = 2, s.H_kv = 1;
    s.window = {100, causal ? -1 : 37};
    s.T_q = 3000;
    s.T_k = 4097;
    run_and_check(s);
  }
}

TEST_F(Fa2Bwd, BshdLayout) {
  for (const Shape& s : bwd_test::bshd_shapes()) run_and_check(s);
}

TEST_F(Fa2Bwd, GroupedQueryHeads) {
  for (const Shape& s : bwd_test::gqa_shapes()) run_and_check(s);
}

TEST_F(Fa2Bwd, SupportRules) {
  AttnParams p;
  p.B = p.H = p.H_kv = p.T_q = p.T_k = 1;
  p.D = 128;
  std::string why;
  p.dtype = KernelDType::fp32;
  EXPECT_FALSE(fa2_bwd_supported(p, &why));
  EXPECT_NE(why.find("fp32"), std::string::npos) << why;
  p.dtype = KernelDType::bf16;
  p.D = 80;  // padded into D = 96's tile, as the forward runs it
  EXPECT_TRUE(fa2_bwd_supported(p, &why)) << why;
  p.D = 84;  // not a multiple of 8: no tile takes its 16-byte rows
  EXPECT_FALSE(fa2_bwd_supported(p, &why));
  p.D = 128;
  p.H = p.H_kv = 70000;
  EXPECT_FALSE(fa2_bwd_supported(p, &why));
  EXPECT_NE(why.find("H_kv"), std::string::npos) << why;
  p.B = 3, p.H = 4, p.H_kv = 2, p.T_q = 5, p.D = 64;
  EXPECT_EQ(fa2_bwd_workspace_bytes(p), 4u * 3 * 4 * 5 * 65);
  p.D = 40;  // the accumulator rows are as wide as D = 64's tile
  EXPECT_EQ(fa2_bwd_workspace_bytes(p), 4u * 3 * 4 * 5 * 65);
}

// Head dims that are multiples of 8 without a tile of their own run padded into the next
// listed backward tile (fa2_padded_head_dim), as the forward does: one or more per tile, the
// narrow forward tiles' dims (72, 80, 104, 112) among them, both dtypes and masks, odd lengths,
// T_q != T_k, GQA and bshd, sliding windows at two of them. A padding column that leaked into S,
// dP, dK or dV, a dK/dV/dQ store past column D (into the next row), or a row sum D_i read past
// column D would show in the comparison.
TEST_F(Fa2Bwd, PaddedHeadDims) {
  int n = 0;
  for (int D : {8, 40, 56, 72, 80, 104, 112, 136, 200, 248}) {
    ASSERT_NE(fa2_padded_head_dim(D), D) << D;
    for (DType dt : {DType::fp16, DType::bf16}) {
      for (bool causal : {false, true}) {
        for (auto [tq, tk] : {std::pair<int, int>{1, 1}, {17, 17}, {17, 1000}, {1000, 17}}) {
          if (std::max(tq, tk) > bwd_test::max_test_length()) continue;
          Shape s;
          s.dtype = dt, s.D = D, s.causal = causal, s.T_q = tq, s.T_k = tk;
          s.B = 2, s.H = 4;
          s.H_kv = n % 3 == 0 ? 2 : 4;
          if (n % 4 == 1) s.layout = Layout::bshd;
          ++n;
          run_and_check(s);
        }
      }
    }
  }
  for (int D : {40, 200}) {
    bwd_test::window_sweep(DType::bf16, D, run_and_check);
  }
  if (1000 > bwd_test::max_test_length()) return;
  for (int D : {80, 112}) {  // long causal cases: many query blocks per key block
    Shape s;
    s.D = D, s.causal = true, s.T_q = s.T_k = 1000;
    run_and_check(s);
  }
}

}  // namespace
}  // namespace fa2b
