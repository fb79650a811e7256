// SPDX-License-Identifier: Apache-2.0
// fa3 (Hopper, wgmma) forward kernel against the float64 reference, on the shapes of the fa2
// kernel test: every (dtype, D, causal) at T = 1, 17, 127, 1000, 4097; T_q != T_k both ways;
// bshd; GQA; a single query; the support rules. O and LSE are poisoned with NaN bytes first.
// Skips without a CUDA device, on devices other than sm_90, and in builds without the sm_90a
// kernels.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "fa3/fa3_fwd.h"
#include "fa3/fa3_traits.h"
#include "fwd_kernel_check.h"
#include "sm90_available.h"
#include "sweep_params.h"

namespace fa2b {
namespace {

using fwd_check::Shape;

const fwd_check::FwdKernel kFa3{fa3_fwd_supported, fa3_fwd};

void run_and_check(const Shape& s) {
  fwd_check::run_and_check(kFa3, s);
}

class Fa3Kernel : public ::testing::Test {
 protected:
  void SetUp() override { FA3_REQUIRE_SM90(); }
};

using sweep_params::DtypeDim;

class Fa3KernelSweep : public ::testing::TestWithParam<DtypeDim> {
 protected:
  void SetUp() override { FA3_REQUIRE_SM90(); }
};

TEST_P(Fa3KernelSweep, AllLengthsBothMasks) {
  fwd_check::odd_length_sweep(kFa3, GetParam().dtype, GetParam().D);
}

INSTANTIATE_TEST_SUITE_P(AllDims, Fa3KernelSweep,
                         ::testing::ValuesIn(sweep_params::dtype_dims_of<Fa3HeadDims>()),
                         sweep_params::sweep_name);

TEST_F(Fa3Kernel, BshdLayout) {
  for (DType dt : {DType::fp16, DType::bf16}) {
    for (int D : Fa3HeadDims::kValues) {
      for (bool causal : {false, true}) {
        Shape s;
        s.dtype = dt;
        s.D = D;
        s.causal = causal;
        s.B = 2;
        s.H = 3;
        s.H_kv = 3;
        s.T_q = 300;
        s.T_k = causal ? 517 : 300;
        s.layout = Layout::bshd;
        run_and_check(s);
      }
    }
  }
}

TEST_F(Fa3Kernel, GroupedQueryHeads) {
  for (DType dt : {DType::fp16, DType::bf16}) {
    for (bool causal : {false, true}) {
      Shape s;
      s.dtype = dt;
      s.D = 128;
      s.causal = causal;
      s.B = 2;
      s.H = 8;
      s.H_kv = 2;
      s.T_q = s.T_k = 333;
      run_and_check(s);
      s.layout = Layout::bshd;
      s.H_kv = 1;
      run_and_check(s);
    }
  }
}

TEST_F(Fa3Kernel, DecodeLikeSingleQuery) {
  Shape s;
  s.dtype = DType::bf16;
  s.D = 128;
  s.T_q = 1;
  s.T_k = 4097;
  s.causal = true;
  run_and_check(s);
}

// Runs without a GPU: the rules are host code.
TEST(Fa3Support, Rules) {
  AttnParams p;
  p.B = p.H = p.H_kv = p.T_q = p.T_k = 1;
  p.D = 128;
  std::string why;
  if (!fa3_built()) {
    EXPECT_FALSE(fa3_fwd_supported(p, &why));
    EXPECT_NE(why.find("not in this build"), std::string::npos) << why;
    return;
  }
  p.dtype = KernelDType::fp32;
  EXPECT_FALSE(fa3_fwd_supported(p, &why));
  EXPECT_EQ(why, "fa3 supports fp16 and bf16 only");
  p.dtype = KernelDType::bf16;
  for (int D : {32, 96, 160, 512}) {
    p.D = D;
    why.clear();
    EXPECT_FALSE(fa3_fwd_supported(p, &why)) << D;
    EXPECT_NE(why.find("supported: 64, 128, 256"), std::string::npos) << why;
  }
  for (int D : Fa3HeadDims::kValues) {
    p.D = D;
    EXPECT_TRUE(fa3_fwd_supported(p, &why)) << D << ": " << why;
  }
  p.window_left = 16;
  EXPECT_FALSE(fa3_fwd_supported(p, &why));
  EXPECT_NE(why.find("no sliding window"), std::string::npos) << why;
  p.window_left = -1;
  // The copy engine's rules: 16-byte aligned bases, strides in whole 16-byte units.
  p.D = 128;
  p.k_row_stride = 132;
  EXPECT_FALSE(fa3_fwd_supported(p, &why));
  EXPECT_NE(why.find("multiple of 8 elements"), std::string::npos) << why;
  p.k_row_stride = 128;
  alignas(16) static const char bytes[32] = {};
  p.v = bytes + 2;
  EXPECT_FALSE(fa3_fwd_supported(p, &why));
  EXPECT_NE(why.find("16-byte aligned"), std::string::npos) << why;
}

}  // namespace
}  // namespace fa2b
