// SPDX-License-Identifier: Apache-2.0
// The peer backends on a CUDA device: cuDNN's fused attention ("cudnn") and cuBLAS + softmax
// ("standard"), run through the case runner and compared with the float64 reference.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "core/shape_algebra.h"
#include "gpu_available.h"
#include "runner/case_runner.h"
#include "runner/platform.h"
#include "runtime/cuda/cudnn_api.h"
#include "tool_binary.h"
#include "verify/reference.h"

namespace fa2b {
namespace {

Case peer_case(const std::string& backend, DType dt, bool causal, std::int64_t T, std::int64_t D,
               Layout layout) {
  Case c;
  c.sweep = "peer-test";
  c.backend = c.role = backend;
  c.B = 2;
  c.H = 4;
  c.H_kv = 4;
  c.T_q = c.T_k = T;
  c.D = D;
  c.dtype = dt;
  c.causal = causal;
  c.layout = layout;
  c.measure.warmup = 0;
  c.measure.min_samples = 1;
  c.measure.max_samples = 2;
  c.measure.l2_flush = false;
  return c;
}

std::unique_ptr<Platform> cuda_platform() {
  std::string why;
  auto p = make_cuda_platform(0, 0, &why);
  EXPECT_NE(p, nullptr) << why;
  return p;
}

// Same bounds as our kernels' tests: one storage rounding of |O| < 3.5 plus P in the dtype.
double max_abs_tol(DType d) {
  return d == DType::bf16 ? 3e-2 : 4e-3;
}
double rel_l2_tol(DType d) {
  return d == DType::bf16 ? 1e-2 : 2e-3;
}

void expect_accurate(const CaseResult& r) {
  const std::string id = r.c.id();
  ASSERT_EQ(r.status, Status::ok) << id << ": " << r.reason;
  EXPECT_TRUE(r.accuracy.checked) << id;
  EXPECT_GT(r.accuracy.rows_checked, 0) << id;
  EXPECT_LE(r.accuracy.max_abs_err, max_abs_tol(r.c.dtype)) << id;
  EXPECT_LE(r.accuracy.rel_l2_err, rel_l2_tol(r.c.dtype)) << id;
  EXPECT_EQ(r.accuracy.nonfinite, 0) << id;
  EXPECT_FALSE(std::isnan(r.prepare_ms)) << id;
}

bool cudnn_loadable() {
  return cudnn_version_string() != "not found";
}

TEST(PeerBackends, StandardMatchesReferenceAndPredictedPeak) {
  FA2B_REQUIRE_GPU();
  auto platform = cuda_platform();
  auto backend = make_backend("standard");
  ASSERT_NE(backend, nullptr);
  for (DType dt : {DType::fp16, DType::bf16})
    for (bool causal : {false, true})
      for (std::int64_t T : {1, 17, 1000})
        for (std::int64_t D : {64, 128})
          for (Layout layout : {Layout::bhsd, Layout::bshd}) {
            const Case c = peer_case("standard", dt, causal, T, D, layout);
            const CaseResult r = run_case(c, *backend, *platform);
            expect_accurate(r);
            EXPECT_EQ(r.memory.peak_bytes, r.memory.predicted_bytes) << c.id();
            EXPECT_EQ(r.memory.workspace_bytes, score_matrix_bytes(c, 4) +
                                                    score_matrix_bytes(c, dtype_bytes(dt)) +
                                                    kStandardCublasWorkspaceBytes)
                << c.id();
            EXPECT_EQ(platform->tracker().current_bytes(), 0) << c.id() << " leaked";
          }
}

TEST(PeerBackends, StandardGqaLongRowsAndCrossLengths) {
  FA2B_REQUIRE_GPU();
  auto platform = cuda_platform();
  auto backend = make_backend("standard");
  struct S {
    std::int64_t H_kv, T_q, T_k;
    bool causal;
    Layout layout;
  };
  // GQA in both layouts, T_q != T_k (bottom-right causal, T_q > T_k rows with no key), and a
  // row longer than the register cache (T_k = 40000: the streamed softmax).
  for (const S& s : {S{1, 300, 300, true, Layout::bhsd}, S{2, 300, 300, false, Layout::bshd},
                     S{4, 17, 1000, true, Layout::bhsd}, S{4, 1000, 17, true, Layout::bshd},
                     S{4, 4, 40000, true, Layout::bhsd}, S{2, 3, 5000, false, Layout::bhsd}}) {
    Case c = peer_case("standard", DType::bf16, s.causal, 1, 64, s.layout);
    c.H_kv = s.H_kv;
    c.T_q = s.T_q;
    c.T_k = s.T_k;
    const CaseResult r = run_case(c, *backend, *platform);
    expect_accurate(r);
    EXPECT_EQ(r.memory.peak_bytes, r.memory.predicted_bytes) << c.id();
  }
}

TEST(PeerBackends, CudnnMatchesReference) {
  FA2B_REQUIRE_GPU();
  if (!cudnn_loadable()) GTEST_SKIP() << "libcudnn.so.9 not loadable here";
  auto platform = cuda_platform();
  auto backend = make_backend("cudnn");
  ASSERT_NE(backend, nullptr);
  for (DType dt : {DType::fp16, DType::bf16})
    for (bool causal : {false, true})
      for (std::int64_t T : {1, 17, 1000})
        for (std::int64_t D : {64, 128}) {
          const CaseResult r =
              run_case(peer_case("cudnn", dt, causal, T, D, Layout::bhsd), *backend, *platform);
          expect_accurate(r);
          EXPECT_EQ(platform->tracker().current_bytes(), 0) << r.c.id() << " leaked";
        }
  // bshd strides and GQA.
  for (bool causal : {false, true}) {
    expect_accurate(run_case(peer_case("cudnn", DType::bf16, causal, 1000, 128, Layout::bshd),
                             *backend, *platform));
    Case gqa = peer_case("cudnn", DType::fp16, causal, 1000, 64, Layout::bhsd);
    gqa.H_kv = 2;
    expect_accurate(run_case(gqa, *backend, *platform));
  }
}

TEST(PeerBackends, CudnnPlansAreCachedPerShape) {
  FA2B_REQUIRE_GPU();
  if (!cudnn_loadable()) GTEST_SKIP() << "libcudnn.so.9 not loadable here";
  auto platform = cuda_platform();
  auto backend = make_backend("cudnn");
  const Case c = peer_case("cudnn", DType::bf16, true, 1000, 128, Layout::bhsd);
  const CaseResult first = run_case(c, *backend, *platform);
  const CaseResult second = run_case(c, *backend, *platform);
  ASSERT_EQ(first.status, Status::ok) << first.reason;
  ASSERT_EQ(second.status, Status::ok) << second.reason;
  // The second prepare finds the plan built by the first.
  EXPECT_LT(second.prepare_ms, first.prepare_ms);
  EXPECT_EQ(second.accuracy.max_abs_err, first.accuracy.max_abs_err);
}

TEST(PeerBackends, CudnnRefusalsAreUnsupportedWithAReason) {
  FA2B_REQUIRE_GPU();
  if (!cudnn_loadable()) GTEST_SKIP() << "libcudnn.so.9 not loadable here";
  auto platform = cuda_platform();
  auto backend = make_backend("cudnn");
  const CaseResult fp32 =
      run_case(peer_case("cudnn", DType::fp32, false, 64, 64, Layout::bhsd), *backend, *platform);
  EXPECT_EQ(fp32.status, Status::unsupported);
  EXPECT_NE(fp32.reason.find("fp32"), std::string::npos) << fp32.reason;
  // A head dim that is not a multiple of 8: cuDNN's own refusal, passed on.
  const CaseResult odd =
      run_case(peer_case("cudnn", DType::bf16, false, 64, 60, Layout::bhsd), *backend, *platform);
  EXPECT_EQ(odd.status, Status::unsupported) << odd.reason;
  EXPECT_EQ(odd.reason.rfind("cuDNN: ", 0), 0u) << odd.reason;
  EXPECT_EQ(platform->tracker().current_bytes(), 0);
  // Causal with T_q != T_k: bottom-right alignment runs exactly, or is refused with a reason.
  Case cross = peer_case("cudnn", DType::bf16, true, 1, 128, Layout::bhsd);
  cross.T_q = 17;
  cross.T_k = 1000;
  const CaseResult r = run_case(cross, *backend, *platform);
  if (r.status == Status::ok) {
    expect_accurate(r);
  } else {
    EXPECT_EQ(r.status, Status::unsupported);
    EXPECT_FALSE(r.reason.empty());
  }
  cross.T_q = 1000;
  cross.T_k = 17;
  const CaseResult more_rows = run_case(cross, *backend, *platform);
  EXPECT_EQ(more_rows.status, Status::unsupported);
  EXPECT_NE(more_rows.reason.find("T_q > T_k"), std::string::npos) << more_rows.reason;
}

// Runs `fa2bench <args>` (the sweep isolates each case on the cuda target) and returns its
// results.json as text ("" when there is none).
std::string sweep_results(const std::string& env, const std::string& args, const std::string& out) {
  const std::string cmd = env + " " + fa2bench_binary() + " sweep " + args + " --quiet --out " +
                          out + " > /dev/null 2>&1";
  const int rc = std::system(cmd.c_str());  // the sweep's exit code reflects its checks
  (void)rc;
  FILE* f = std::fopen((out + "/results.json").c_str(), "r");
  if (f == nullptr) return "";
  std::string text;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof(buf), f)) > 0;) text.append(buf, n);
  std::fclose(f);
  return text;
}

TEST(PeerBackends, CudnnRecordsItsEngine) {
  FA2B_REQUIRE_GPU();
  if (!cudnn_loadable()) GTEST_SKIP() << "libcudnn.so.9 not loadable here";
  auto platform = cuda_platform();
  auto backend = make_backend("cudnn");
  const Case c = peer_case("cudnn", DType::bf16, true, 1000, 128, Layout::bhsd);
  const CaseResult with = run_case(c, *backend, *platform);
  expect_accurate(with);
  // "heur A #0: engine 8, knobs 24=1,25=0"
  const std::string& info = with.backend_info;
  EXPECT_EQ(info.rfind("heur ", 0), 0u) << info;
  EXPECT_NE(info.find(": engine "), std::string::npos) << info;
  EXPECT_NE(info.find(", knobs "), std::string::npos) << info;
  EXPECT_EQ(info.find("read-back failed"), std::string::npos) << info;
  const CaseResult again = run_case(c, *backend, *platform);
  EXPECT_EQ(again.backend_info, with.backend_info);

  // Through the isolated child process of a sweep, into results.json.
  const std::string out = ::testing::TempDir() + "peer_cudnn_info";
  const std::string args = "--target cuda --isolate --backends cudnn --set grid.T=[128]";
  const std::string text = sweep_results("", args, out);
  ASSERT_FALSE(text.empty()) << "no results from the sweep";
  EXPECT_NE(text.find("\"backend_info\": \"heur "), std::string::npos);
}

TEST(PeerBackends, CudnnMissingLibraryIsUnsupported) {
  FA2B_REQUIRE_GPU();
  // The library is loaded once per process: check the missing path in a child process, the
  // fa2bench binary itself, so this test does not depend on the order tests run in.
  const std::string out = ::testing::TempDir() + "peer_missing_cudnn";
  const std::string cmd = std::string("FA2BENCH_CUDNN_PATH=/nonexistent/libcudnn.so.9 ") +
                          fa2bench_binary() +
                          " sweep --target cuda --backends cudnn --set grid.T=[128] --quiet"
                          " --out " +
                          out + " > /dev/null 2>&1";
  const int rc = std::system(cmd.c_str());  // the sweep's exit code reflects its checks
  (void)rc;
  FILE* f = std::fopen((out + "/results.json").c_str(), "r");
  ASSERT_NE(f, nullptr) << "no results from: " << cmd;
  std::string text;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof(buf), f)) > 0;) text.append(buf, n);
  std::fclose(f);
  EXPECT_NE(text.find("cuDNN not found"), std::string::npos);
  EXPECT_NE(text.find("\"unsupported\""), std::string::npos);
  EXPECT_NE(text.find("\"cudnn\": \"not found\""), std::string::npos);
  EXPECT_EQ(text.find("\"status\": \"ok\""), std::string::npos);
}

}  // namespace
}  // namespace fa2b
