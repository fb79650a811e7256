// SPDX-License-Identifier: Apache-2.0
// cuDNN's forward on variable-length batches (the cudnn backend's padding mask and ragged-offset
// tensors, cudnn/sdpa_graph.h) against the float64 reference: lengths 17, 0, 1000, 1 in one
// batch, causal and not, grouped-query heads, fp16 and bf16, D = 64 and 128; O and LSE poisoned
// with NaN first. Packed: every element of O written and finite, nothing past its end, and the
// case's LSE left alone (cuDNN's packed Stats are token-major, so the backend keeps them in a
// buffer of its own). Padded: the real rows and their LSE (padding rows are any output), and the
// same through the runner. Skips without a GPU or where libcudnn.so.9 does not load.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/shape_params.h"
#include "common/device_utils.h"
#include "common/numeric.h"
#include "core/seq_lengths.h"
#include "core/shape_algebra.h"
#include "dev_buf.h"
#include "fwd_kernel_check.h"
#include "gpu_available.h"
#include "runner/case_runner.h"
#include "runner/platform.h"
#include "runtime/cuda/cudnn_api.h"
#include "varlen_check.h"

namespace fa2b {
namespace {

bool cudnn_loadable() {
  return cudnn_version_string() != "not found";
}

#define REQUIRE_GPU_AND_CUDNN()                                               \
  do {                                                                        \
    FA2B_REQUIRE_GPU();                                                       \
    if (!cudnn_loadable()) GTEST_SKIP() << "libcudnn.so.9 not loadable here"; \
  } while (0)

using varlen_check::Outcome;
using varlen_check::run_varlen;

// The batch of the shared check (varlen_check.h) without its 4097, bshd for both packings.
Case varlen_case(Packing packing, DType dt, int D, bool causal, std::int64_t H_kv) {
  Case c = varlen_check::varlen_case(packing, dt, D, causal, H_kv, "cudnn");
  c.sweep = "cudnn-varlen-test";
  c.lengths = {17, 0, 1000, 1};
  c.B = static_cast<std::int64_t>(c.lengths.size());
  c.T_q = c.T_k = *std::max_element(c.lengths.begin(), c.lengths.end());
  c.layout = Layout::bshd;
  c.measure.seed = 91 + static_cast<std::uint64_t>(D);
  c.measure.warmup = 1;
  c.measure.min_samples = 2;
  c.measure.max_samples = 3;
  return c;
}

// The cudnn backend through prepare() and run() on the test's buffers (its varlen arrays are
// its own, built from the case's lengths in prepare()). Refusals are reported and skipped.
struct CudnnRun {
  std::unique_ptr<Platform> platform;
  std::unique_ptr<Backend> backend = make_backend("cudnn");
  std::string refusal;
  cudaError_t operator()(const Case& c, const AttnParams& p) {
    const Support s = backend->supports(c, platform->info());
    if (!s.ok) {
      refusal = s.reason;
      return cudaSuccess;
    }
    AttnParams bare = p;  // the backend gets the runner's params: no arrays
    bare.cu_seqlens_q = bare.cu_seqlens_k = bare.seqused = nullptr;
    try {
      backend->prepare(c, bare, platform->tracker());
      backend->run(bare, nullptr);
    } catch (const std::exception& e) {
      refusal = e.what();
    }
    return cudaGetLastError();
  }
};

class CudnnVarlen : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_GPU_AND_CUDNN();
    std::string why;
    run_.platform = make_cuda_platform(0, 0, &why);
    ASSERT_NE(run_.platform, nullptr) << why;
  }
  CudnnRun run_;
};

TEST_F(CudnnVarlen, PackedMatchesTheReference) {
  for (DType dt : {DType::bf16, DType::fp16})
    for (int D : {64, 128})
      for (bool causal : {false, true})
        for (std::int64_t H_kv : {4, 2}) {
          const Case c = varlen_case(Packing::packed, dt, D, causal, H_kv);
          SCOPED_TRACE(c.shape_key());
          run_.refusal.clear();
          const Outcome r = run_varlen([&](const AttnParams& p) { return run_(c, p); }, c, c,
                                       /*check_lse=*/false);
          run_.backend->release();
          if (!run_.refusal.empty() && H_kv != c.H) {
            std::cout << "[ refused  ] " << c.shape_key() << ": " << run_.refusal << "\n";
            continue;  // ragged GQA needs cuDNN >= 9.6 (the backend says so)
          }
          ASSERT_TRUE(run_.refusal.empty()) << run_.refusal;
          EXPECT_EQ(r.nonfinite, 0) << "O has unwritten or non-finite elements";
          EXPECT_EQ(r.guard_written, 0) << "bytes written past O's end";
          EXPECT_EQ(r.lse_bytes_written, 0) << "the packed Stats landed in the case's LSE";
          EXPECT_LE(r.max_abs_err, fwd_check::max_abs_tol(dt));
          EXPECT_LE(r.rel_l2_err, fwd_check::rel_l2_tol(dt));
        }
}

// Padded: the real rows only (rows past a sequence's length may stay unwritten: cuDNN's M
// override skips them); the LSE of real rows in [B, H, T].
TEST_F(CudnnVarlen, PaddedRealRowsMatchTheReference) {
  for (DType dt : {DType::bf16, DType::fp16})
    for (bool causal : {false, true}) {
      const Case c = varlen_case(Packing::padded, dt, 128, causal, 2);
      SCOPED_TRACE(c.shape_key());
      run_.refusal.clear();
      const Outcome r = run_varlen([&](const AttnParams& p) { return run_(c, p); }, c, c);
      run_.backend->release();
      ASSERT_TRUE(run_.refusal.empty()) << run_.refusal;
      std::cout << "[ padded   ] " << c.shape_key() << ": non-finite elements of O (padding rows "
                << "included) " << r.nonfinite << "\n";
      EXPECT_EQ(r.guard_written, 0) << "bytes written past O's end";
      EXPECT_LE(r.max_abs_err, fwd_check::max_abs_tol(dt));
      EXPECT_LE(r.rel_l2_err, fwd_check::rel_l2_tol(dt));
      EXPECT_LE(r.lse_err, 1e-2);
    }
}

// Through the runner: status ok, the sampled rows within tolerance, and (packed) the whole
// output finite; the tracked device memory all released.
TEST_F(CudnnVarlen, RunnerRunsBothPackings) {
  for (Packing packing : {Packing::packed, Packing::padded})
    for (DType dt : {DType::bf16, DType::fp16}) {
      const Case c = varlen_case(packing, dt, 128, true, 4);
      SCOPED_TRACE(c.id());
      auto backend = make_backend("cudnn");
      const CaseResult r = run_case(c, *backend, *run_.platform);
      ASSERT_EQ(r.status, Status::ok) << r.reason;
      std::cout << "[ runner   ] " << c.id() << ": " << r.backend_info << "\n";
      if (packing == Packing::packed) {
        EXPECT_EQ(r.accuracy.nonfinite, 0);
      }
      EXPECT_GT(r.accuracy.rows_checked, 0);
      EXPECT_LT(r.accuracy.max_abs_err, fwd_check::max_abs_tol(dt));
      EXPECT_EQ(run_.platform->tracker().current_bytes(), 0) << "leaked device memory";
    }
}

TEST(CudnnVarlenSupport, BackwardIsRefusedWithAReason) {
  REQUIRE_GPU_AND_CUDNN();
  std::string why;
  auto platform = make_cuda_platform(0, 0, &why);
  ASSERT_NE(platform, nullptr) << why;
  Case c = varlen_case(Packing::packed, DType::bf16, 128, true, 4);
  c.mode = Mode::fwd_bwd;
  const Support s = make_backend("cudnn")->supports(c, platform->info());
  EXPECT_FALSE(s.ok);
  EXPECT_NE(s.reason.find("forward only"), std::string::npos) << s.reason;
}

}  // namespace
}  // namespace fa2b
