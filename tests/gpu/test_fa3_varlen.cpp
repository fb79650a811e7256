// SPDX-License-Identifier: Apache-2.0
// Packed variable-length batches in the fa3 (Hopper) forward: lengths 17, 0, 1000, 1 and 4097
// in one batch (varlen_check.h), causal and not, grouped-query heads, fp16 and bf16, every fa3
// head dim, bshd and bhsd; O and LSE poisoned with NaN first; the whole output written and
// finite, nothing past its end, the LSE in [H, total]. A control with shifted offsets must fail.
// Through the runner: status, accuracy and the tracked peak equal to the prediction; padded is
// refused with its reason. Skips off sm_90 and in builds without the sm_90a kernels.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "backends/backend.h"
#include "backends/shape_params.h"
#include "fa3/fa3_fwd.h"
#include "fa3/fa3_traits.h"
#include "fwd_kernel_check.h"
#include "runner/case_runner.h"
#include "runner/platform.h"
#include "sm90_available.h"
#include "sweep_params.h"
#include "varlen_check.h"

namespace fa2b {
namespace {

using sweep_params::DtypeDim;
using namespace varlen_check;

cudaError_t run_fa3(const AttnParams& p) {
  std::string why;
  EXPECT_TRUE(fa3_fwd_supported(p, &why)) << why;
  return fa3_fwd(p, nullptr);
}

Case fa3_case(DType dt, int D, bool causal, std::int64_t H_kv, Layout layout = Layout::bshd) {
  Case c = varlen_case(Packing::packed, dt, D, causal, H_kv, "fa3");
  c.layout = layout;
  return c;
}

class Fa3VarlenSweep : public ::testing::TestWithParam<DtypeDim> {
 protected:
  void SetUp() override { FA3_REQUIRE_SM90(); }
};

TEST_P(Fa3VarlenSweep, PackedMatchesTheReference) {
  const DtypeDim dd = GetParam();
  for (Layout layout : {Layout::bshd, Layout::bhsd})
    for (bool causal : {false, true})
      for (std::int64_t H_kv : {4, 2}) {
        const Case c = fa3_case(dd.dtype, dd.D, causal, H_kv, layout);
        SCOPED_TRACE(c.shape_key());
        expect_matches(run_varlen(run_fa3, c, c), dd.dtype);
      }
}

TEST_P(Fa3VarlenSweep, ShiftedOffsetsFail) {
  const DtypeDim dd = GetParam();
  const Case c = fa3_case(dd.dtype, dd.D, true, 2);
  SCOPED_TRACE(c.shape_key());
  const Outcome r = run_varlen(run_fa3, c, shifted(c));
  EXPECT_GT(r.max_abs_err, 10 * fwd_check::max_abs_tol(dd.dtype)) << "the control passed";
}

INSTANTIATE_TEST_SUITE_P(AllDims, Fa3VarlenSweep,
                         ::testing::ValuesIn(sweep_params::dtype_dims_of<Fa3HeadDims>()),
                         sweep_params::sweep_name);

// The kernel's own rules: padded batches and packed ones without their token totals are
// refused with a reason, whatever the catalog says.
TEST(Fa3VarlenSupport, PaddedAndTotallessPackedAreRefused) {
  FA3_REQUIRE_SM90();
  const int arrays[2 * 3] = {0, 1, 2, 0, 1, 2};
  AttnParams p = shape_params(fa3_case(DType::bf16, 128, true, 4));
  std::string why;
  AttnParams padded = p;
  padded.seqused = arrays;
  EXPECT_FALSE(fa3_fwd_supported(padded, &why));
  EXPECT_NE(why.find("padded"), std::string::npos) << why;
  AttnParams totalless = p;
  totalless.cu_seqlens_q = totalless.cu_seqlens_k = arrays;
  totalless.total_q = 0;
  EXPECT_FALSE(fa3_fwd_supported(totalless, &why));
  EXPECT_NE(why.find("total"), std::string::npos) << why;
}

TEST(Fa3VarlenRunner, PackedRunsWithTheExactPeakAndPaddedIsRefused) {
  FA3_REQUIRE_SM90();
  std::string why;
  auto platform = make_cuda_platform(0, 0, &why);
  ASSERT_NE(platform, nullptr) << why;
  for (Packing packing : {Packing::packed, Packing::padded}) {
    Case c = varlen_case(packing, DType::bf16, 128, true, 2, "fa3");
    c.measure.warmup = 1;
    c.measure.min_samples = 2;
    c.measure.max_samples = 3;
    auto backend = make_backend("fa3");
    const CaseResult r = run_case(c, *backend, *platform);
    SCOPED_TRACE(c.id());
    if (packing == Packing::padded) {
      EXPECT_EQ(r.status, Status::unsupported);
      EXPECT_NE(r.reason.find("only packed"), std::string::npos) << r.reason;
      continue;
    }
    ASSERT_EQ(r.status, Status::ok) << r.reason;
    EXPECT_EQ(r.accuracy.nonfinite, 0);
    EXPECT_GT(r.accuracy.rows_checked, 0);
    EXPECT_LT(r.accuracy.max_abs_err, fwd_check::max_abs_tol(DType::bf16));
    EXPECT_EQ(r.memory.peak_bytes, r.memory.predicted_bytes);
    EXPECT_EQ(platform->tracker().current_bytes(), 0) << "leaked device memory";
  }
}

}  // namespace
}  // namespace fa2b
