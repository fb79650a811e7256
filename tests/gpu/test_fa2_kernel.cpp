// SPDX-License-Identifier: Apache-2.0
// FA2 forward kernel against the float64 reference: every (dtype, D, causal) at T = 1, 17, 127,
// 1000, 4097; T_q != T_k both ways; sliding windows (every (dtype, D), with and without causal);
// bshd; GQA; head dims padded into the next tile; a grid beyond 65535 CTAs; the support rules.
// O and LSE are poisoned with NaN bytes first, so any element the kernel fails to write shows.
// Every test skips when no CUDA device is present.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "common/head_dims.h"
#include "fa2/fa2_fwd.h"
#include "fa2/fa2_padded_head_dims.h"
#include "fwd_kernel_check.h"
#include "gpu_available.h"
#include "sweep_params.h"

namespace fa2b {
namespace {

using fwd_check::Shape;

const fwd_check::FwdKernel kFa2{fa2_fwd_supported, fa2_fwd};

void run_and_check(const Shape& s) {
  fwd_check::run_and_check(kFa2, s);
}

class Fa2Kernel : public ::testing::Test {
 protected:
  void SetUp() override { FA2B_REQUIRE_GPU(); }
};

using sweep_params::DtypeDim;

class Fa2KernelSweep : public ::testing::TestWithParam<DtypeDim> {
 protected:
  void SetUp() override { FA2B_REQUIRE_GPU(); }
};

TEST_P(Fa2KernelSweep, AllLengthsBothMasks) {
  fwd_check::odd_length_sweep(kFa2, GetParam().dtype, GetParam().D);
}

INSTANTIATE_TEST_SUITE_P(AllDims, Fa2KernelSweep,
                         ::testing::ValuesIn(sweep_params::fa2_dtype_dims()),
                         sweep_params::sweep_name);

// Windows on every tile: each (dtype, D) has its own block sizes, so the first / last key block
// of a window and the masked edges land differently in each.
TEST_P(Fa2KernelSweep, SlidingWindows) {
  fwd_check::window_sweep(kFa2, GetParam().dtype, GetParam().D);
}

TEST_F(Fa2Kernel, BshdLayout) {
  for (DType dt : {DType::fp16, DType::bf16}) {
    for (int D : {64, 128, 256}) {
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

// Head dims that are multiples of 8 without a tile of their own run padded into the next
// listed tile (fa2_padded_head_dim): one or more per tile, from 8 (into 32) to 248 (into 256),
// and the narrow tiles (72 and 80 in D = 80's, 104 and 112 in D = 112's; fa2_narrow_head_dim),
// both dtypes and masks, odd lengths, T_q != T_k, GQA and bshd. Padding columns that leaked into
// Q*K^T or P*V, or an O store past column D (into the next row), would show in the comparison.
TEST_F(Fa2Kernel, PaddedHeadDims) {
  int n = 0;
  for (int D : {8, 24, 40, 56, 72, 80, 88, 104, 112, 120, 136, 176, 200, 248}) {
    ASSERT_NE(fa2_padded_head_dim(D), D) << D;
    for (DType dt : {DType::fp16, DType::bf16}) {
      for (bool causal : {false, true}) {
        for (auto [tq, tk] :
             {std::pair<std::int64_t, std::int64_t>{1, 1}, {17, 17}, {17, 1000}, {1000, 17}}) {
          Shape s;
          s.dtype = dt;
          s.D = D;
          s.causal = causal;
          s.T_q = tq;
          s.T_k = tk;
          s.B = 2;
          s.H = 4;
          s.H_kv = n % 3 == 0 ? 2 : 4;
          if (n % 4 == 1) s.layout = Layout::bshd;
          ++n;
          run_and_check(s);
        }
      }
    }
  }
  for (std::int64_t T : {1000, 4097}) {  // long causal cases, many key tiles per CTA
    if (T > fwd_check::max_test_length()) continue;
    for (int D : {80, 88, 112}) {  // narrow, full, narrow
      Shape s;
      s.D = D;
      s.causal = true;
      s.T_q = s.T_k = T;
      run_and_check(s);
    }
  }
}

TEST_F(Fa2Kernel, GroupedQueryHeads) {
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

TEST_F(Fa2Kernel, DecodeLikeSingleQuery) {
  Shape s;
  s.dtype = DType::bf16;
  s.D = 128;
  s.T_q = 1;
  s.T_k = 4097;
  s.causal = true;  // bottom-right: the single query sees every key
  run_and_check(s);
}

// A window much smaller than T: most key blocks of every CTA are skipped, across several
// (batch, head) pairs and m-blocks, with a window not aligned to any block size.
TEST_F(Fa2Kernel, SmallWindowOnALongSequence) {
  if (8192 > fwd_check::max_test_length()) GTEST_SKIP() << "FA2BENCH_TEST_MAX_T";
  for (bool causal : {false, true}) {
    Shape s;
    s.dtype = DType::bf16;
    s.D = 128;
    s.causal = causal;
    s.window = {100, causal ? -1 : 37};
    s.B = 2;
    s.H = 4;
    s.H_kv = 2;
    s.T_q = 5000;
    s.T_k = 8192;
    run_and_check(s);
  }
}

TEST_F(Fa2Kernel, GridBeyond65535Blocks) {
  Shape s;
  s.dtype = DType::fp16;
  s.D = 32;
  s.causal = true;
  s.B = 70;
  s.H = 1000;  // 70000 (batch, head) pairs, one m-block each
  s.H_kv = 1000;
  s.T_q = s.T_k = 17;
  run_and_check(s);
}

TEST_F(Fa2Kernel, SupportRules) {
  AttnParams p;
  p.B = p.H = p.H_kv = p.T_q = p.T_k = 1;
  p.D = 128;
  std::string why;
  p.dtype = KernelDType::fp32;
  EXPECT_FALSE(fa2_fwd_supported(p, &why));
  EXPECT_EQ(why, "fp32 is not supported by fa2 (use fp16 or bf16)");
  p.dtype = KernelDType::bf16;
  for (int D : {0, 4, 100, 250, 264, 512}) {
    p.D = D;
    why.clear();
    EXPECT_FALSE(fa2_fwd_supported(p, &why)) << D;
    EXPECT_NE(why.find("every multiple of 8 up to 256"), std::string::npos) << why;
    EXPECT_NE(why.find("32, 64, 96, 128, 160, 192, 224, 256"), std::string::npos) << why;
  }
  for (int D = 8; D <= 256; D += 8) {
    p.D = D;
    EXPECT_TRUE(fa2_fwd_supported(p, &why)) << D << ": " << why;
  }
}

}  // namespace
}  // namespace fa2b
