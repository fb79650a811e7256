// SPDX-License-Identifier: Apache-2.0
// Variable-length batches on the GPU: the fa2 forward packed (cu_seqlens) and padded (seqused),
// naive and standard padded, against the float64 reference. Lengths 0, 1, 17, 1000 and 4097 in
// one batch, causal and not, grouped-query heads, fp16 and bf16, every fa2 head dim; O and LSE
// poisoned with NaN first; the whole output must be written and finite, and nothing past its
// end. A control shifts one sequence offset (or length) and must fail the same comparison.
// Through the runner: the tracked peak is exactly the predicted one (the arrays included).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/shape_params.h"
#include "core/result.h"
#include "dev_buf.h"
#include "fa2/fa2_fwd.h"
#include "fwd_kernel_check.h"
#include "gpu_available.h"
#include "naive/naive_attn.h"
#include "runner/case_runner.h"
#include "runner/platform.h"
#include "runner_expect.h"
#include "sweep_params.h"
#include "varlen_check.h"

namespace fa2b {
namespace {

using sweep_params::DtypeDim;
using namespace varlen_check;

cudaError_t run_fa2(const AttnParams& p) {
  std::string why;
  EXPECT_TRUE(fa2_fwd_supported(p, &why)) << why;
  return fa2_fwd(p, nullptr);
}

class Fa2VarlenSweep : public ::testing::TestWithParam<DtypeDim> {
 protected:
  void SetUp() override { FA2B_REQUIRE_GPU(); }
};

TEST_P(Fa2VarlenSweep, PackedAndPaddedMatchTheReference) {
  const DtypeDim dd = GetParam();
  for (Packing packing : {Packing::packed, Packing::padded})
    for (bool causal : {false, true})
      for (std::int64_t H_kv : {4, 2}) {
        const Case c = varlen_case(packing, dd.dtype, dd.D, causal, H_kv);
        SCOPED_TRACE(c.shape_key());
        expect_matches(run_varlen(run_fa2, c, c), dd.dtype);
      }
}

TEST_P(Fa2VarlenSweep, ShiftedOffsetsFail) {
  const DtypeDim dd = GetParam();
  for (Packing packing : {Packing::packed, Packing::padded}) {
    const Case c = varlen_case(packing, dd.dtype, dd.D, true, 2);
    SCOPED_TRACE(c.shape_key());
    const Outcome r = run_varlen(run_fa2, c, shifted(c));
    EXPECT_GT(r.max_abs_err, 10 * fwd_check::max_abs_tol(dd.dtype)) << "the control passed";
  }
}

INSTANTIATE_TEST_SUITE_P(AllDims, Fa2VarlenSweep,
                         ::testing::ValuesIn(sweep_params::fa2_dtype_dims()),
                         sweep_params::sweep_name);

TEST(NaiveVarlen, PaddedMatchesTheReferenceAndTheControlFails) {
  FA2B_REQUIRE_GPU();
  for (DType dt : {DType::bf16, DType::fp16})
    for (bool causal : {false, true}) {
      Case c = varlen_case(Packing::padded, dt, 64, causal, 2);
      c.backend = c.role = "naive";
      SCOPED_TRACE(c.shape_key());
      const std::int64_t bytes = naive_workspace_bytes(shape_params(c));
      DevBuf ws(static_cast<std::size_t>(bytes));
      const auto naive = [&](const AttnParams& p) { return naive_attention(p, ws.ptr, nullptr); };
      expect_matches(run_varlen(naive, c, c), dt);
      EXPECT_GT(run_varlen(naive, c, shifted(c)).max_abs_err, 10 * fwd_check::max_abs_tol(dt));
    }
}

// Through the runner and the backends' prepare(): status, accuracy, and the tracked peak equal
// to the prediction (the varlen arrays included); naive and standard refuse packed.
TEST(GpuRunnerVarlen, BackendsRunTheirPackingsWithExactPeaks) {
  FA2B_REQUIRE_GPU();
  std::string why;
  auto platform = make_cuda_platform(0, 0, &why);
  ASSERT_NE(platform, nullptr) << why;
  struct Run {
    const char* backend;
    Packing packing;
    bool ok;
  };
  for (const Run& run :
       {Run{"fa2", Packing::packed, true}, Run{"fa2", Packing::padded, true},
        Run{"naive", Packing::padded, true}, Run{"standard", Packing::padded, true},
        Run{"naive", Packing::packed, false}, Run{"standard", Packing::packed, false}}) {
    Case c = varlen_case(run.packing, DType::bf16, 128, true, 2);
    c.backend = c.role = run.backend;
    c.measure.warmup = 1;
    c.measure.min_samples = 2;
    c.measure.max_samples = 3;
    auto backend = make_backend(run.backend);
    const CaseResult r = run_case(c, *backend, *platform);
    SCOPED_TRACE(c.id());
    if (!run.ok) {
      EXPECT_EQ(r.status, Status::unsupported);
      EXPECT_NE(r.reason.find("only padded"), std::string::npos) << r.reason;
      continue;
    }
    ASSERT_EQ(r.status, Status::ok) << r.reason;
    EXPECT_EQ(r.accuracy.nonfinite, 0);
    EXPECT_LT(r.accuracy.max_abs_err, fwd_check::max_abs_tol(DType::bf16));
    EXPECT_EQ(r.memory.peak_bytes, r.memory.predicted_bytes);
    EXPECT_EQ(platform->tracker().current_bytes(), 0) << "leaked device memory";
  }
}

// fa2's variable-length backward through the runner: both packings, causal and not, GQA and
// MHA, fp16 and bf16, lengths 0, 1, 17, 1000 and 4097 in one batch (varlen_check.h). dQ, dK and
// dV of sampled real rows and keys against float64 (the device reference reads each sequence's
// rows through the token layout), every gradient element finite (dQ, dK, dV were poisoned: a
// padded batch's padding rows must be written), the tracked peak the predicted one.
TEST(Fa2VarlenBackward, PackedAndPaddedGradientsMatchTheReference) {
  FA2B_REQUIRE_GPU();
  std::string why;
  auto platform = make_cuda_platform(0, 0, &why);
  ASSERT_NE(platform, nullptr) << why;
  auto fa2 = make_backend("fa2");
  int n = 0;
  for (Packing packing : {Packing::packed, Packing::padded}) {
    for (bool causal : {false, true}) {
      for (DType dt : {DType::bf16, DType::fp16}) {
        const int D = n % 3 == 0 ? 64 : 128;
        Case c = varlen_case(packing, dt, D, causal, n % 2 == 0 ? 2 : 4);
        ++n;
        c.mode = Mode::fwd_bwd;
        c.measure.warmup = 0;
        c.measure.min_samples = 1;
        c.measure.max_samples = 2;
        c.measure.verify_rows = 2048;
        const CaseResult r = run_case(c, *fa2, *platform);
        SCOPED_TRACE(c.id());
        ASSERT_EQ(r.status, Status::ok) << r.reason;
        expect_matches_reference(r, fwd_check::max_abs_tol(dt), fwd_check::rel_l2_tol(dt), 2e-2);
        EXPECT_EQ(r.memory.peak_bytes, r.memory.predicted_bytes);
        EXPECT_EQ(platform->tracker().current_bytes(), 0) << "leaked device memory";
      }
    }
  }
}

}  // namespace
}  // namespace fa2b
