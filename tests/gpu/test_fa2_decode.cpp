// SPDX-License-Identifier: Apache-2.0
// fa2's decode forward (split-KV, GQA packing) against the float64 reference: decode shapes
// (T_q = 1, 4, 17 against T_k = 1 ... 40000), causal and not, sliding windows, GQA (H = 32 with
// H_kv = 8 and 1), bshd, fp16 and bf16, every head dim. The split count is forced through
// FA2BENCH_FA2_SPLITS to odd values (splits that see no key, counts that do not divide the key
// blocks, more splits than blocks, one split with packed heads) and also left to the heuristic;
// packing is on by default and turned off (FA2BENCH_FA2_GQA_PACK=0) for some GQA shapes; every
// run asserts the plan it took. O and LSE are poisoned with NaN first
// (fwd_kernel_check.h) and both are compared. A control test drops one split from the combine
// and expects the check to fail. Every test skips when no CUDA device is present.
#include <cuda_runtime.h>
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "common/head_dims.h"
#include "fa2/fa2_fwd.h"
#include "fa2/fa2_fwd_launch.h"
#include "fa2/fa2_split_kv.h"
#include "fwd_kernel_check.h"
#include "gpu_available.h"
#include "runner/case_runner.h"
#include "runner/platform.h"
#include "runner_case.h"
#include "scoped_env.h"
#include "sweep_params.h"

namespace fa2b {
namespace {

using fwd_check::Shape;

// The plan of the last run, for the tests to assert on.
int g_last_splits = 0;
bool g_last_packed = false;
// Control: the split whose log-sum-exps are set to -inf before a second combine (-1: none).
int g_drop_split = -1;

// The forward as the fa2 backend runs it: the decode plan for the shape (the heuristic, or
// FA2BENCH_FA2_SPLITS / _GQA_PACK), a workspace of the size fa2 asks for, then the forward.
cudaError_t run_split_forward(const AttnParams& p, cudaStream_t stream) {
  const Fa2SplitKv plan = fa2_fwd_decode_plan(p);
  const int n = plan.n_splits;
  g_last_splits = n;
  g_last_packed = plan.pack_gqa;
  const std::int64_t bytes = fa2_fwd_split_workspace_bytes(p, n);
  DevBuf ws(static_cast<std::size_t>(bytes));
  if (n > 1 && ws.ptr == nullptr) return cudaErrorMemoryAllocation;
  Fa2SplitKv split = plan;
  split.o_partial = static_cast<float*>(ws.ptr);
  const std::int64_t rows = static_cast<std::int64_t>(p.B) * p.H * p.T_q;
  split.lse_partial = n > 1 ? split.o_partial + n * rows * p.D : nullptr;
  // Poison the workspace too: a split row the kernel forgets to write shows up as NaN.
  if (n > 1 && cudaMemset(ws.ptr, 0xFF, static_cast<std::size_t>(bytes)) != cudaSuccess) {
    return cudaErrorUnknown;
  }
  cudaError_t err = fa2_fwd(p, split, stream);
  if (err == cudaSuccess && n > 1 && g_drop_split >= 0 && g_drop_split < n) {
    const std::vector<float> minus_inf(static_cast<std::size_t>(rows),
                                       -std::numeric_limits<float>::infinity());
    err = cudaMemcpyAsync(split.lse_partial + g_drop_split * rows, minus_inf.data(),
                          rows * sizeof(float), cudaMemcpyHostToDevice, stream);
    if (err == cudaSuccess) err = fa2_fwd_combine(p, split, stream);
  }
  // The workspace is freed on return: finish first.
  const cudaError_t sync = cudaStreamSynchronize(stream);
  return err != cudaSuccess ? err : sync;
}

const fwd_check::FwdKernel kFa2Split{fa2_fwd_supported, run_split_forward};

// Runs and checks `s` with FA2BENCH_FA2_SPLITS = forced (0: the heuristic) and packing allowed
// or not, and asserts the plan that ran: the count (`expect_splits`; 0: any count above 1), and
// packing wherever it is allowed and a group's rows fit the smallest decode tile (64 rows).
void check_split(const Shape& s, int forced, int expect_splits, bool pack = true) {
  const std::string forced_text = std::to_string(forced);
  ScopedEnv env("FA2BENCH_FA2_SPLITS", forced > 0 ? forced_text.c_str() : nullptr);
  ScopedEnv pack_env("FA2BENCH_FA2_GQA_PACK", pack ? nullptr : "0");
  SCOPED_TRACE("FA2BENCH_FA2_SPLITS=" + (forced > 0 ? forced_text : std::string("unset")) +
               (pack ? "" : " FA2BENCH_FA2_GQA_PACK=0"));
  g_last_splits = 0;
  g_last_packed = false;
  fwd_check::run_and_check(kFa2Split, s);
  if (expect_splits > 0) {
    EXPECT_EQ(g_last_splits, expect_splits) << fwd_check::describe(s);
  } else {
    EXPECT_GT(g_last_splits, 1) << fwd_check::describe(s) << ": the split path did not run";
  }
  const std::int64_t group_rows = s.H / s.H_kv * s.T_q;
  if (!pack || s.H == s.H_kv) {
    EXPECT_FALSE(g_last_packed) << fwd_check::describe(s);
  } else if (group_rows <= 64) {
    EXPECT_TRUE(g_last_packed) << fwd_check::describe(s);
  }
}

using sweep_params::DtypeDim;

class Fa2DecodeSweep : public ::testing::TestWithParam<DtypeDim> {
 protected:
  void SetUp() override { FA2B_REQUIRE_GPU(); }
};

// Forced counts cycled over the shapes: 3 splits of T_k = 1 (one key block) leave two splits
// without a key; 5 of 1000 keys (16 blocks of 64) are 4 + 4 + 4 + 4 + 0 blocks; 7 of 40000 keys
// do not divide 625 blocks; 1 runs the packed kernel without a split where heads are grouped;
// 128 is the cap.
constexpr int kForcedSplits[] = {3, 5, 7, 1, 2, 128};
constexpr int kForcedCount = sizeof(kForcedSplits) / sizeof(kForcedSplits[0]);

TEST_P(Fa2DecodeSweep, DecodeLengthsBothMasks) {
  int n = 0;
  for (bool causal : {false, true}) {
    for (std::int64_t tq : {1, 4, 17}) {
      for (std::int64_t tk : {1, 17, 1000, 4097, 40000}) {
        if (tk > fwd_check::max_test_length()) continue;
        Shape s;
        s.dtype = GetParam().dtype;
        s.D = GetParam().D;
        s.causal = causal;
        s.T_q = tq;
        s.T_k = tk;
        s.B = 2;
        s.H = 4;
        s.H_kv = n % 2 == 0 ? 2 : 4;
        if (n % 3 == 1) s.layout = Layout::bshd;
        const int forced = kForcedSplits[n % kForcedCount];
        const bool pack = n % 4 != 2;  // some grouped shapes unpacked
        ++n;
        check_split(s, forced, forced, pack);
      }
    }
  }
}

// Windows per split: the window's first and last key block land in different splits, and a
// split may hold only keys outside every row's window.
TEST_P(Fa2DecodeSweep, SlidingWindows) {
  int n = 0;
  for (const SlidingWindow& w : kTestWindows) {
    for (std::int64_t tq : {1, 4, 17}) {
      for (std::int64_t tk : {17, 1000, 4097}) {
        if (tk > fwd_check::max_test_length()) continue;
        Shape s;
        s.dtype = GetParam().dtype;
        s.D = GetParam().D;
        s.causal = n % 2 == 1;
        s.window = w;
        s.T_q = tq;
        s.T_k = tk;
        s.B = 2;
        s.H = 4;
        s.H_kv = 2;
        if (n % 4 == 2) s.layout = Layout::bshd;
        if (n % 5 == 3) s.H_kv = 4;  // and some not grouped
        const int forced = kForcedSplits[n % kForcedCount];
        const bool pack = n % 7 != 5;
        ++n;
        check_split(s, forced, forced, pack);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllDims, Fa2DecodeSweep,
                         ::testing::ValuesIn(sweep_params::fa2_dtype_dims()),
                         sweep_params::sweep_name);

class Fa2Decode : public ::testing::Test {
 protected:
  void SetUp() override { FA2B_REQUIRE_GPU(); }
};

// The decode heads (H = 32 against 8 or 1 KV heads), the split count left to the
// heuristic on this device: B = 1 fills too few SMs, so it must split; packed (H_kv = 8: 4 or
// 16 rows a group; H_kv = 1 at T_q = 1: 32 rows) and not (H_kv = 1 at T_q = 4: 128 rows exceed
// the 64-row tile of D = 128; and packing turned off).
TEST_F(Fa2Decode, GroupedQueryHeadsByHeuristic) {
  if (40000 > fwd_check::max_test_length()) GTEST_SKIP() << "FA2BENCH_TEST_MAX_T";
  for (DType dt : {DType::fp16, DType::bf16}) {
    for (std::int64_t h_kv : {8, 1}) {
      for (std::int64_t tq : {1, 4}) {
        for (Layout layout : {Layout::bhsd, Layout::bshd}) {
          for (bool pack : {true, false}) {
            Shape s;
            s.dtype = dt;
            s.D = 128;
            s.causal = true;
            s.B = 1;
            s.H = 32;
            s.H_kv = h_kv;
            s.T_q = tq;
            s.T_k = 40000;
            s.layout = layout;
            check_split(s, 0, 0, pack);
            if (h_kv == 1 && tq == 4) {
              EXPECT_FALSE(g_last_packed);
            }
          }
        }
      }
    }
  }
}

// The heuristic's device size comes from FA2BENCH_FA2_NUM_SMS when set: a pretend large GPU
// splits a small shape by itself, a pretend one-SM GPU does not split the shape.
TEST_F(Fa2Decode, MultiprocessorOverrideMovesTheChoice) {
  if (4097 > fwd_check::max_test_length()) GTEST_SKIP() << "FA2BENCH_TEST_MAX_T";
  Shape s;
  s.dtype = DType::bf16;
  s.D = 64;
  s.causal = true;
  s.B = 2;
  s.H = 4;
  s.H_kv = 2;
  s.T_q = 4;
  s.T_k = 4097;
  {
    ScopedEnv sms("FA2BENCH_FA2_NUM_SMS", "1000");
    check_split(s, 0, 0);
  }
  ScopedEnv sms("FA2BENCH_FA2_NUM_SMS", "1");
  AttnParams p;
  p.B = 1, p.H = 32, p.H_kv = 8, p.T_q = 1, p.T_k = 131072, p.D = 128, p.causal = true;
  p.dtype = KernelDType::bf16;
  EXPECT_EQ(fa2_fwd_decode_plan(p).n_splits, 1);
}

// Rows that see no key at all (T_q > T_k under the bottom-right causal mask): every split is
// empty for them, so the combine must give zeros and LSE = -inf.
TEST_F(Fa2Decode, RowsWithoutKeysThroughTheCombine) {
  Shape s;
  s.dtype = DType::bf16;
  s.D = 128;
  s.causal = true;
  s.B = 2;
  s.H = 4;
  s.H_kv = 2;
  s.T_q = 17;
  s.T_k = 5;
  check_split(s, 3, 3);
}

// Control: the same check fails when the combine leaves one split out, so a split path that
// lost a slice of the keys could not pass the tests above.
TEST_F(Fa2Decode, CheckFailsWhenASplitIsDropped) {
  if (4097 > fwd_check::max_test_length()) GTEST_SKIP() << "FA2BENCH_TEST_MAX_T";
  Shape s;
  s.dtype = DType::bf16;
  s.D = 128;
  s.causal = true;
  s.B = 1;
  s.H = 4;
  s.H_kv = 1;
  s.T_q = 4;
  s.T_k = 4097;  // 65 key blocks: 4 splits of 17; split 1 holds keys 1088..2175
  ::testing::TestPartResultArray failures;
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
    g_drop_split = 1;
    check_split(s, 4, 4);
    g_drop_split = -1;
  }
  int fatal = 0, nonfatal = 0;
  for (int i = 0; i < failures.size(); ++i) {
    fatal += failures.GetTestPartResult(i).fatally_failed() ? 1 : 0;
    nonfatal += failures.GetTestPartResult(i).nonfatally_failed() ? 1 : 0;
  }
  EXPECT_EQ(fatal, 0) << "the run itself failed";
  EXPECT_GT(nonfatal, 0) << "dropping a split went unnoticed";
}

// Through the runner, as a sweep runs it: the split workspace is allocated in prepare() through
// the tracker, so the case's workspace bytes are the split workspace, and the result matches.
TEST_F(Fa2Decode, SplitWorkspaceIsTracked) {
  if (8192 > fwd_check::max_test_length()) GTEST_SKIP() << "FA2BENCH_TEST_MAX_T";
  ScopedEnv env("FA2BENCH_FA2_SPLITS", "6");
  std::string why;
  auto platform = make_cuda_platform(0, 0, &why);
  ASSERT_NE(platform, nullptr) << why;
  auto backend = make_backend("fa2");
  const Case c = gpu_runner_case("fa2", 1, 32, 8, 1, 8192);
  const CaseResult r = run_case(c, *backend, *platform);
  ASSERT_EQ(r.status, Status::ok) << r.reason;
  const std::int64_t split_bytes = 4LL * 6 * c.B * c.H * c.T_q * (c.D + 1);
  EXPECT_GE(r.memory.workspace_bytes, split_bytes);
  EXPECT_LE(r.memory.workspace_bytes, split_bytes + 256);
  EXPECT_LT(r.accuracy.rel_l2_err, 1e-2);
  EXPECT_EQ(r.accuracy.nonfinite, 0);
  EXPECT_EQ(r.backend_info, "fa2 decode: 6 splits, GQA groups packed");
  EXPECT_EQ(platform->tracker().current_bytes(), 0) << "leaked device memory";
}

}  // namespace
}  // namespace fa2b
