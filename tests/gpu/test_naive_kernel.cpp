// SPDX-License-Identifier: Apache-2.0
// Naive (materialising) attention kernels against the float64 reference: every (dtype, D,
// causal) at odd and even lengths, T_q != T_k both ways, sliding windows, head dims that are
// multiples of 8 but not of 32, bshd, GQA, a B*H beyond the grid's y limit, and the support
// rules. Every test skips when no CUDA device is present.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/device_utils.h"
#include "common/numeric.h"
#include "core/case.h"
#include "gpu_available.h"
#include "naive/naive_attn.h"
#include "shape_text.h"
#include "verify/reference.h"

namespace fa2b {
namespace {

#define CUDA_OK(expr) ASSERT_EQ((expr), cudaSuccess) << #expr

struct DeviceBuffer {
  void* ptr = nullptr;
  explicit DeviceBuffer(std::size_t bytes) {
    if (cudaMalloc(&ptr, bytes < 1 ? 1 : bytes) != cudaSuccess) ptr = nullptr;
  }
  ~DeviceBuffer() { cudaFree(ptr); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

KernelDType kernel_dtype(DType d) {
  return d == DType::bf16 ? KernelDType::bf16 : KernelDType::fp16;
}

float to_float(std::uint16_t x, DType d) {
  return d == DType::bf16 ? bf16_to_float(x) : fp16_to_float(x);
}

// Device tensors for one case plus the params that address them.
struct Problem {
  Case c;
  Strides sq{}, skv{};
  std::int64_t q_elems = 0, kv_elems = 0;
  std::unique_ptr<DeviceBuffer> q, k, v, o, lse, ws;
  AttnParams p;
};

void setup(Problem& pr) {
  const Case& c = pr.c;
  pr.sq = tensor_strides(c.layout, c.H, c.T_q, c.D);
  pr.skv = tensor_strides(c.layout, c.H_kv, c.T_k, c.D);
  pr.q_elems = c.B * c.H * c.T_q * c.D;
  pr.kv_elems = c.B * c.H_kv * c.T_k * c.D;
  pr.q = std::make_unique<DeviceBuffer>(pr.q_elems * 2);
  pr.k = std::make_unique<DeviceBuffer>(pr.kv_elems * 2);
  pr.v = std::make_unique<DeviceBuffer>(pr.kv_elems * 2);
  pr.o = std::make_unique<DeviceBuffer>(pr.q_elems * 2);
  pr.lse = std::make_unique<DeviceBuffer>(c.B * c.H * c.T_q * sizeof(float));
  AttnParams& p = pr.p;
  p.q = pr.q->ptr, p.k = pr.k->ptr, p.v = pr.v->ptr, p.o = pr.o->ptr;
  p.lse = static_cast<float*>(pr.lse->ptr);
  p.q_batch_stride = pr.sq.b, p.q_head_stride = pr.sq.h, p.q_row_stride = pr.sq.t;
  p.o_batch_stride = pr.sq.b, p.o_head_stride = pr.sq.h, p.o_row_stride = pr.sq.t;
  p.k_batch_stride = pr.skv.b, p.k_head_stride = pr.skv.h, p.k_row_stride = pr.skv.t;
  p.v_batch_stride = pr.skv.b, p.v_head_stride = pr.skv.h, p.v_row_stride = pr.skv.t;
  p.B = static_cast<int>(c.B), p.H = static_cast<int>(c.H), p.H_kv = static_cast<int>(c.H_kv);
  p.T_q = static_cast<int>(c.T_q), p.T_k = static_cast<int>(c.T_k), p.D = static_cast<int>(c.D);
  p.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(c.D)));  // as the reference
  p.causal = c.causal;
  p.window_left = static_cast<int>(c.window.left);
  p.window_right = static_cast<int>(c.window.right);
  p.dtype = kernel_dtype(c.dtype);
  pr.ws = std::make_unique<DeviceBuffer>(naive_workspace_bytes(p));
}

void fill(Problem& pr) {
  const Case& c = pr.c;
  const auto dt = kernel_dtype(c.dtype);
  const auto dist = static_cast<KernelInputDist>(static_cast<int>(c.measure.inputs));
  const int B = static_cast<int>(c.B), D = static_cast<int>(c.D);
  ASSERT_EQ(fill_inputs(pr.q->ptr, dt, B, static_cast<int>(c.H), static_cast<int>(c.T_q), D,
                        pr.sq.b, pr.sq.h, pr.sq.t, c.measure.seed, InputTensor::q, dist, nullptr),
            cudaSuccess);
  ASSERT_EQ(
      fill_inputs(pr.k->ptr, dt, B, static_cast<int>(c.H_kv), static_cast<int>(c.T_k), D, pr.skv.b,
                  pr.skv.h, pr.skv.t, c.measure.seed, InputTensor::k, dist, nullptr),
      cudaSuccess);
  ASSERT_EQ(
      fill_inputs(pr.v->ptr, dt, B, static_cast<int>(c.H_kv), static_cast<int>(c.T_k), D, pr.skv.b,
                  pr.skv.h, pr.skv.t, c.measure.seed, InputTensor::v, dist, nullptr),
      cudaSuccess);
  // Poison outputs (0xFF bytes are NaN in every dtype) so unwritten elements show up.
  CUDA_OK(cudaMemset(pr.o->ptr, 0xFF, pr.q_elems * 2));
  CUDA_OK(cudaMemset(pr.lse->ptr, 0xFF, c.B * c.H * c.T_q * sizeof(float)));
  // Poison the workspace too: the stages must never read S or P that nobody wrote.
  CUDA_OK(cudaMemset(pr.ws->ptr, 0xFF, naive_workspace_bytes(pr.p)));
}

struct Tolerance {
  double max_abs, rel_l2, lse_abs;
};

Tolerance tolerance(DType d) {
  // Output rounding (half an ulp at |o| < 4) plus P rounding to the storage dtype.
  if (d == DType::bf16) return {2.5e-2, 8e-3, 2e-4};
  return {4e-3, 1.5e-3, 2e-4};
}

// Compares sampled rows of O and LSE with the float64 reference and counts non-finite O.
void verify(Problem& pr, int max_rows) {
  const Case& c = pr.c;
  std::vector<std::uint16_t> o(static_cast<std::size_t>(pr.q_elems));
  std::vector<float> lse(static_cast<std::size_t>(c.B * c.H * c.T_q));
  CUDA_OK(cudaMemcpy(o.data(), pr.o->ptr, o.size() * 2, cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(lse.data(), pr.lse->ptr, lse.size() * 4, cudaMemcpyDeviceToHost));

  std::int64_t nonfinite = -1;
  CUDA_OK(count_nonfinite(pr.o->ptr, kernel_dtype(c.dtype), pr.q_elems, &nonfinite, nullptr));
  EXPECT_EQ(nonfinite, 0);

  const auto rows = sample_rows(c, max_rows, c.measure.seed);
  std::vector<double> ref, ref_lse;
  reference_rows(c, rows, ref, ref_lse);
  std::vector<float> got(rows.size() * c.D);
  double lse_err = 0;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const RowRef& rr = rows[r];
    const std::int64_t base = rr.b * pr.sq.b + rr.h * pr.sq.h + rr.i * pr.sq.t;
    for (std::int64_t d = 0; d < c.D; ++d) got[r * c.D + d] = to_float(o[base + d], c.dtype);
    const float g = lse[(rr.b * c.H + rr.h) * c.T_q + rr.i];
    if (std::isinf(ref_lse[r])) {
      EXPECT_TRUE(std::isinf(g) && g < 0) << "row " << rr.i << " sees no key: LSE " << g;
    } else {
      lse_err = std::max(lse_err, std::isfinite(g) ? std::abs(g - ref_lse[r])
                                                   : std::numeric_limits<double>::infinity());
    }
  }
  const Accuracy a = compare_rows(c, rows, ref, got);
  const Tolerance tol = tolerance(c.dtype);
  EXPECT_EQ(a.nonfinite, 0);
  EXPECT_LE(a.max_abs_err, tol.max_abs) << c.id();
  EXPECT_LE(a.rel_l2_err, tol.rel_l2) << c.id();
  EXPECT_LE(lse_err, tol.lse_abs) << c.id();
}

void run_case(const Case& c, int max_rows = 256) {
  Problem pr;
  pr.c = c;
  setup(pr);
  ASSERT_NE(pr.ws->ptr, nullptr);
  std::string why;
  ASSERT_TRUE(naive_supported(pr.p, &why)) << why;
  fill(pr);
  ASSERT_EQ(naive_attention(pr.p, pr.ws->ptr, nullptr), cudaSuccess);
  CUDA_OK(cudaDeviceSynchronize());
  verify(pr, max_rows);
}

Case make_case(DType dt, std::int64_t D, bool causal, std::int64_t T_q, std::int64_t T_k,
               std::int64_t B = 2, std::int64_t H = 2, std::int64_t H_kv = 2,
               Layout layout = Layout::bhsd) {
  Case c;
  c.backend = c.role = "naive";
  c.B = B, c.H = H, c.H_kv = H_kv, c.T_q = T_q, c.T_k = T_k, c.D = D;
  c.dtype = dt, c.causal = causal, c.layout = layout;
  return c;
}

struct Shape {
  DType dtype;
  int D;
  bool causal;
};

class NaiveSweep : public ::testing::TestWithParam<Shape> {};

TEST_P(NaiveSweep, MatchesReferenceAtOddAndEvenLengths) {
  FA2B_REQUIRE_GPU();
  const Shape s = GetParam();
  for (std::int64_t T : {1, 17, 127, 1000}) {
    SCOPED_TRACE("T=" + std::to_string(T));
    run_case(make_case(s.dtype, s.D, s.causal, T, T));
  }
}

std::vector<Shape> all_shapes() {
  std::vector<Shape> v;
  for (DType dt : {DType::fp16, DType::bf16})
    for (int D : {32, 64, 96, 128, 160, 192, 224, 256})
      for (bool causal : {false, true}) v.push_back({dt, D, causal});
  return v;
}

std::string shape_name(const ::testing::TestParamInfo<Shape>& param_info) {
  const Shape& s = param_info.param;
  return std::string(to_string(s.dtype)) + "_D" + std::to_string(s.D) +
         (s.causal ? "_causal" : "_full");
}

INSTANTIATE_TEST_SUITE_P(Naive, NaiveSweep, ::testing::ValuesIn(all_shapes()), shape_name);

TEST(NaiveKernel, LongSequencePastTileMultiples) {
  FA2B_REQUIRE_GPU();
  for (bool causal : {false, true}) {
    run_case(make_case(DType::fp16, 128, causal, 4097, 4097, 1, 2, 2));
    run_case(make_case(DType::bf16, 64, causal, 4097, 4097, 1, 2, 2));
    run_case(make_case(DType::fp16, 256, causal, 4097, 4097, 1, 1, 1));
  }
}

TEST(NaiveKernel, QueriesFewerThanKeys) {
  FA2B_REQUIRE_GPU();
  for (bool causal : {false, true}) {
    run_case(make_case(DType::fp16, 128, causal, 17, 1000));
    run_case(make_case(DType::bf16, 64, causal, 127, 300));
    run_case(make_case(DType::fp16, 96, causal, 1, 129));
  }
}

// With causal, the first T_q - T_k rows see no key: zeros and LSE = -inf.
TEST(NaiveKernel, QueriesMoreThanKeys) {
  FA2B_REQUIRE_GPU();
  for (bool causal : {false, true}) {
    run_case(make_case(DType::fp16, 128, causal, 1000, 17));
    run_case(make_case(DType::bf16, 64, causal, 300, 127));
    run_case(make_case(DType::fp16, 32, causal, 260, 1));
  }
}

// Sliding windows (issue 20): lengths 1, 17 and 1000, T_q != T_k both ways (rows that see no
// key: zeros, LSE -inf), widths 0, one-sided, two-sided and wider than T, with and without
// causal. The workspace is poisoned, so the S tiles the QK GEMM skips before a window must
// never be read as values.
TEST(NaiveKernel, SlidingWindows) {
  FA2B_REQUIRE_GPU();
  int n = 0;
  for (const SlidingWindow& w : kTestWindows) {
    for (auto [tq, tk] : kWindowTestLengths) {
      for (bool causal : {false, true}) {
        const DType dt = n % 2 ? DType::bf16 : DType::fp16;
        const std::int64_t D = n % 3 == 0 ? 64 : n % 3 == 1 ? 128 : 96;
        Case c = make_case(dt, D, causal, tq, tk, 2, n % 4 == 1 ? 4 : 2, 2,
                           n % 4 == 2 ? Layout::bshd : Layout::bhsd);
        c.window = w;
        ++n;
        SCOPED_TRACE("window [" + std::to_string(w.left) + ", " + std::to_string(w.right) + "]");
        run_case(c);
      }
    }
  }
}

// Every head dim that is a multiple of 8 (issue 20): the GEMMs' last 32-wide chunk of D is
// zero-filled and the stores stop at D.
TEST(NaiveKernel, HeadDimsMultipleOfEight) {
  FA2B_REQUIRE_GPU();
  int n = 0;
  for (std::int64_t D : {8, 40, 80, 112, 200, 248}) {
    for (std::int64_t T : {17, 1000}) {
      Case c = make_case(n % 2 ? DType::bf16 : DType::fp16, D, n % 3 == 1, T, T + 3 * (n % 2));
      if (n % 3 == 2) c.window = {9, 4};
      ++n;
      run_case(c);
    }
  }
  run_case(make_case(DType::fp16, 40, true, 300, 300, 2, 3, 3, Layout::bshd));
}

TEST(NaiveKernel, BshdLayout) {
  FA2B_REQUIRE_GPU();
  for (bool causal : {false, true}) {
    run_case(make_case(DType::fp16, 128, causal, 300, 300, 2, 3, 3, Layout::bshd));
    run_case(make_case(DType::bf16, 160, causal, 127, 400, 2, 3, 3, Layout::bshd));
  }
}

TEST(NaiveKernel, GroupedQueryHeads) {
  FA2B_REQUIRE_GPU();
  run_case(make_case(DType::bf16, 128, true, 300, 300, 2, 8, 2));
  run_case(make_case(DType::fp16, 64, false, 200, 333, 1, 6, 3, Layout::bshd));
}

// B*H above the 65535 grid-y limit: the kernels must loop over (batch, head).
TEST(NaiveKernel, ManyHeads) {
  FA2B_REQUIRE_GPU();
  run_case(make_case(DType::fp16, 32, true, 3, 5, 2, 35000, 35000));
}

TEST(NaiveKernel, SupportRules) {
  AttnParams p;
  p.B = p.H = p.H_kv = 1;
  p.T_q = p.T_k = 16;
  p.D = 64;
  std::string why;
  p.dtype = KernelDType::fp32;
  EXPECT_FALSE(naive_supported(p, &why));
  EXPECT_EQ(why, "fp32 is not supported by naive (use fp16 or bf16)");
  p.dtype = KernelDType::bf16;
  EXPECT_TRUE(naive_supported(p, &why)) << why;
  for (int D : {8, 16, 40, 48, 80, 112, 200, 256}) {
    p.D = D;
    EXPECT_TRUE(naive_supported(p, &why)) << D << ": " << why;
  }
  for (int D : {4, 12, 36, 100, 264, 288}) {
    p.D = D;
    EXPECT_FALSE(naive_supported(p, &why)) << D;
    EXPECT_NE(why.find("multiples of 8 from 8 to 256"), std::string::npos) << why;
  }
  p.D = 64;
  p.H = 3, p.H_kv = 2;
  EXPECT_FALSE(naive_supported(p, &why));
  // S (float32) and P (16-bit) with rows padded to 8: 16 rows of 24 -> 1536 + 768 bytes.
  p.H = p.H_kv = 1;
  p.T_k = 17;
  EXPECT_EQ(naive_workspace_bytes(p), 1536u + 768u);
}

// Not a correctness test: times the three stages on the paper shapes (CUDA events, median of
// 10 after 3 warm-ups) and checks a few rows of each. Run with
// --gtest_also_run_disabled_tests --gtest_filter='*Bench*'.
TEST(NaiveKernel, DISABLED_BenchPaperShapes) {
  FA2B_REQUIRE_GPU();
  struct B {
    DType dt;
    std::int64_t b, t;
  };
  for (const B& s : {B{DType::fp16, 1, 2048}, B{DType::bf16, 4, 4096}, B{DType::bf16, 4, 8192}}) {
    Problem pr;
    pr.c = make_case(s.dt, 128, true, s.t, s.t, s.b, 32, 32);
    setup(pr);
    ASSERT_NE(pr.ws->ptr, nullptr);
    fill(pr);
    cudaEvent_t e0, e1;
    CUDA_OK(cudaEventCreate(&e0));
    CUDA_OK(cudaEventCreate(&e1));
    std::vector<float> ms;
    for (int it = 0; it < 13; ++it) {
      CUDA_OK(cudaEventRecord(e0));
      ASSERT_EQ(naive_attention(pr.p, pr.ws->ptr, nullptr), cudaSuccess);
      CUDA_OK(cudaEventRecord(e1));
      CUDA_OK(cudaEventSynchronize(e1));
      float t = 0;
      CUDA_OK(cudaEventElapsedTime(&t, e0, e1));
      if (it >= 3) ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    std::printf("naive %s: median %.3f ms (min %.3f, max %.3f), workspace %.2f GiB\n",
                pr.c.id().c_str(), ms[ms.size() / 2], ms.front(), ms.back(),
                static_cast<double>(naive_workspace_bytes(pr.p)) / (1 << 30));
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    verify(pr, 24);
  }
}

}  // namespace
}  // namespace fa2b
