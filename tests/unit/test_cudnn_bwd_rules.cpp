// SPDX-License-Identifier: Apache-2.0
// The cudnn backend's host-side backward rules (backends/cuda/cudnn/sdpa_bwd_rules.h): the
// cudnn-frontend refusals it applies before building a graph, its dQ accumulator and row-sums
// buffer, and the catalog's formula for that buffer. Built with the CUDA target only (the rules
// live beside the backend).
#include <gtest/gtest.h>

#include <string>

#include "core/backend_catalog.h"
#include "core/shape_algebra.h"

#ifdef FA2BENCH_WITH_CUDA
#include "backends/cuda/cudnn/sdpa_bwd_rules.h"

namespace fa2b {
namespace {

constexpr std::int64_t k919 = 91900;

Case shape(std::int64_t T_q, std::int64_t T_k, std::int64_t D) {
  Case c;
  c.backend = c.role = "cudnn";
  c.B = 2;
  c.H = 8;
  c.H_kv = 2;
  c.T_q = T_q;
  c.T_k = T_k;
  c.D = D;
  c.dtype = DType::bf16;
  c.mode = Mode::fwd_bwd;
  return c;
}

TEST(CudnnBwdRules, HopperTakesHeadDimsInStepsOf8UpTo256) {
  for (std::int64_t D : {8, 32, 64, 96, 128, 160, 192, 224, 256}) {
    EXPECT_EQ(sdpa_bwd_refusal(shape(1000, 1000, D), 9, k919), "") << D;
  }
  for (std::int64_t D : {36, 60, 264, 512}) {
    const std::string why = sdpa_bwd_refusal(shape(1000, 1000, D), 9, k919);
    EXPECT_NE(why.find("multiples of 8 up to 256"), std::string::npos) << D << ": " << why;
  }
  // Elsewhere (Ampere, Blackwell) up to 128: D = 192 with d_v = 192 is refused on Blackwell too.
  for (int cc : {8, 10, 12}) {
    EXPECT_EQ(sdpa_bwd_refusal(shape(1000, 1000, 128), cc, k919), "") << cc;
    for (std::int64_t D : {192, 256, 60}) {
      const std::string why = sdpa_bwd_refusal(shape(1000, 1000, D), cc, k919);
      EXPECT_NE(why.find("multiples of 8 up to 128"), std::string::npos) << cc << " " << D;
    }
  }
}

TEST(CudnnBwdRules, OneQueryAndOneKeyIsRefused) {
  EXPECT_NE(sdpa_bwd_refusal(shape(1, 1, 64), 9, k919).find("T_q = T_k = 1"), std::string::npos);
  EXPECT_EQ(sdpa_bwd_refusal(shape(1, 17, 64), 9, k919), "");
  EXPECT_EQ(sdpa_bwd_refusal(shape(17, 1, 64), 9, k919), "");
}

TEST(CudnnBwdRules, VersionsCudnnFrontendRefusesOrWorksAround) {
  const Case odd = shape(1000, 1000, 128), even = shape(1024, 1024, 128);
  EXPECT_NE(sdpa_bwd_refusal(even, 9, 90500).find("needs cuDNN 9.6.0"), std::string::npos);
  EXPECT_NE(sdpa_bwd_refusal(even, 9, 91000).find("9.10.0"), std::string::npos);
  EXPECT_NE(sdpa_bwd_refusal(even, 9, 91001).find("known bugs"), std::string::npos);
  EXPECT_EQ(sdpa_bwd_refusal(even, 9, 91002), "");
  // Up to 9.15.0 T_k must be a multiple of 128 (no padding-mask workaround here).
  EXPECT_EQ(sdpa_bwd_refusal(even, 9, 90600), "");
  EXPECT_NE(sdpa_bwd_refusal(odd, 9, 91500).find("multiple of 128"), std::string::npos);
  EXPECT_EQ(sdpa_bwd_refusal(odd, 9, 91501), "");
  EXPECT_EQ(sdpa_bwd_refusal(odd, 9, k919), "");
}

TEST(CudnnBwdRules, AccumulatorAndRowSumsAreTheCatalogsBackwardWorkspace) {
  const Case c = shape(333, 517, 128);
  EXPECT_EQ(sdpa_bwd_aux_bytes(c.B, c.H, c.T_q, c.D), 4 * 2 * 8 * 333 * 129);
  EXPECT_EQ(sdpa_bwd_row_sums_offset(c.B, c.H, c.T_q, c.D), 4 * 2 * 8 * 333 * 128);
  EXPECT_EQ(sdpa_bwd_row_sums_offset(c.B, c.H, c.T_q, 8) % 16, 0);
  EXPECT_EQ(backward_workspace_bytes(c), sdpa_bwd_aux_bytes(c.B, c.H, c.T_q, c.D));
  const BackendEntry* e = find_backend_entry("cudnn");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->forward_workspace_bytes, 0);  // the plans' workspaces are not predicted
  // The training peak the runner predicts: inputs, outputs, dO and gradients, accumulator.
  EXPECT_EQ(predicted_memory(c).predicted_bytes,
            io_bytes(c) + grad_io_bytes(c) + sdpa_bwd_aux_bytes(c.B, c.H, c.T_q, c.D));
}

}  // namespace
}  // namespace fa2b
#endif
