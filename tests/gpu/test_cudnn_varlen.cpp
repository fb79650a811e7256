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

std::vector<std::int64_t> test_lengths() {
  return {17, 0, 1000, 1};
}

Case varlen_case(Packing packing, DType dt, int D, bool causal, std::int64_t H_kv) {
  Case c;
  c.sweep = "cudnn-varlen-test";
  c.backend = c.role = "cudnn";
  c.lengths = test_lengths();
  c.B = static_cast<std::int64_t>(c.lengths.size());
  c.T_q = c.T_k = *std::max_element(c.lengths.begin(), c.lengths.end());
  c.packing = packing;
  c.layout = Layout::bshd;
  c.H = 4;
  c.H_kv = H_kv;
  c.D = D;
  c.dtype = dt;
  c.causal = causal;
  c.measure.seed = 91 + static_cast<std::uint64_t>(D);
  c.measure.warmup = 1;
  c.measure.min_samples = 2;
  c.measure.max_samples = 3;
  return c;
}

constexpr std::int64_t kGuardBytes = 1 << 16;  // poisoned bytes after O's end

struct Outcome {
  double max_abs_err = 0, rel_l2_err = 0, lse_err = 0;
  std::int64_t nonfinite = -1, guard_written = -1, lse_written = -1;
};

// Runs `kernel` on c's tensors (filled as the runner fills them) with the varlen arrays of
// `arrays_from` (c itself, or a control with shifted lengths) and compares every sampled real
// row of c with the float64 reference.
template <typename Kernel>
Outcome run_varlen(Kernel kernel, const Case& c) {
  const Case& arrays_from = c;
  Outcome out;
  const KernelDType kdt = c.dtype == DType::bf16 ? KernelDType::bf16 : KernelDType::fp16;
  const TokenLayout ql = query_layout(c), kl = key_layout(c);
  const Strides sq = tensor_strides(c.layout, c.H, ql.rows, c.D);
  const Strides skv = tensor_strides(c.layout, c.H_kv, kl.rows, c.D);
  const std::int64_t q_elems = ql.batches * c.H * ql.rows * c.D;
  const std::int64_t kv_elems = kl.batches * c.H_kv * kl.rows * c.D;
  const std::int64_t lse_elems = ql.batches * ql.rows * c.H;
  DevBuf q(q_elems * 2), k(kv_elems * 2), v(kv_elems * 2), o(q_elems * 2 + kGuardBytes),
      lse(lse_elems * sizeof(float)), arrays(4 * (2 * c.B + 2));
  EXPECT_TRUE(q.ptr && k.ptr && v.ptr && o.ptr && lse.ptr && arrays.ptr);
  const std::uint64_t seed = c.measure.seed;
  const auto fill = [&](void* ptr, const TokenLayout& l, std::int64_t heads, const Strides& s,
                        InputTensor which) {
    EXPECT_EQ(fill_inputs(ptr, kdt, static_cast<int>(l.batches), static_cast<int>(heads),
                          static_cast<int>(l.rows), static_cast<int>(c.D), s.b, s.h, s.t, seed,
                          which, KernelInputDist::normal, nullptr),
              cudaSuccess);
  };
  fill(q.ptr, ql, c.H, sq, InputTensor::q);
  fill(k.ptr, kl, c.H_kv, skv, InputTensor::k);
  fill(v.ptr, kl, c.H_kv, skv, InputTensor::v);
  EXPECT_EQ(cudaMemset(o.ptr, 0xFF, q_elems * 2 + kGuardBytes), cudaSuccess);
  EXPECT_EQ(cudaMemset(lse.ptr, 0xFF, lse_elems * sizeof(float)), cudaSuccess);

  AttnParams p = shape_params(c);
  p.q = q.ptr;
  p.k = k.ptr;
  p.v = v.ptr;
  p.o = o.ptr;
  p.lse = static_cast<float*>(lse.ptr);
  std::vector<int> host;
  if (c.packing == Packing::packed) {
    for (const std::int64_t off : sequence_offsets(arrays_from))
      host.push_back(static_cast<int>(off));
    const std::size_t n = host.size();
    for (std::size_t i = 0; i < n; ++i) host.push_back(host[i]);
    p.cu_seqlens_q = static_cast<const int*>(arrays.ptr);
    p.cu_seqlens_k = p.cu_seqlens_q + c.B + 1;
  } else {
    for (const std::int64_t n : arrays_from.lengths) host.push_back(static_cast<int>(n));
    p.seqused = static_cast<const int*>(arrays.ptr);
  }
  EXPECT_EQ(cudaMemcpy(arrays.ptr, host.data(), host.size() * 4, cudaMemcpyHostToDevice),
            cudaSuccess);
  EXPECT_EQ(kernel(p), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  EXPECT_EQ(count_nonfinite(o.ptr, kdt, q_elems, &out.nonfinite, nullptr), cudaSuccess);
  std::vector<std::uint8_t> guard(kGuardBytes);
  EXPECT_EQ(cudaMemcpy(guard.data(), static_cast<const std::uint8_t*>(o.ptr) + q_elems * 2,
                       kGuardBytes, cudaMemcpyDeviceToHost),
            cudaSuccess);
  out.guard_written =
      std::count_if(guard.begin(), guard.end(), [](std::uint8_t x) { return x != 0xFF; });
  std::vector<std::uint8_t> lse_bytes(lse_elems * sizeof(float));
  EXPECT_EQ(cudaMemcpy(lse_bytes.data(), lse.ptr, lse_bytes.size(), cudaMemcpyDeviceToHost),
            cudaSuccess);
  out.lse_written =
      std::count_if(lse_bytes.begin(), lse_bytes.end(), [](std::uint8_t x) { return x != 0xFF; });

  const std::vector<RowRef> rows = sample_rows(c, 192, seed);
  std::vector<double> ref, ref_lse;
  reference_rows(c, rows, ref, ref_lse);
  std::vector<std::uint16_t> raw(static_cast<std::size_t>(c.D));
  std::vector<float> got;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const RowRef& row = rows[r];
    const std::int64_t off =
        ql.batch_of(row.b) * sq.b + row.h * sq.h + ql.row_of(row.b, row.i) * sq.t;
    EXPECT_EQ(cudaMemcpy(raw.data(), static_cast<const std::uint16_t*>(o.ptr) + off, c.D * 2,
                         cudaMemcpyDeviceToHost),
              cudaSuccess);
    for (std::int64_t d = 0; d < c.D; ++d)
      got.push_back(c.dtype == DType::bf16 ? bf16_to_float(raw[d]) : fp16_to_float(raw[d]));
    if (c.packing == Packing::packed) continue;  // the case's LSE is not cuDNN's packed Stats
    const std::int64_t loff = (row.b * c.H + row.h) * c.T_q + row.i;  // [B, H, T]
    float have = 0;
    EXPECT_EQ(
        cudaMemcpy(&have, static_cast<const float*>(lse.ptr) + loff, 4, cudaMemcpyDeviceToHost),
        cudaSuccess);
    out.lse_err =
        std::max(out.lse_err, std::isfinite(have) ? std::abs(have - ref_lse[r])
                                                  : std::numeric_limits<double>::infinity());
  }
  const Accuracy a = compare_rows(c, rows, ref, got);
  out.max_abs_err = a.max_abs_err;
  out.rel_l2_err = a.rel_l2_err;
  return out;
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
          const Outcome r = run_varlen([&](const AttnParams& p) { return run_(c, p); }, c);
          run_.backend->release();
          if (!run_.refusal.empty() && H_kv != c.H) {
            std::cout << "[ refused  ] " << c.shape_key() << ": " << run_.refusal << "\n";
            continue;  // ragged GQA needs cuDNN >= 9.6 (the backend says so)
          }
          ASSERT_TRUE(run_.refusal.empty()) << run_.refusal;
          EXPECT_EQ(r.nonfinite, 0) << "O has unwritten or non-finite elements";
          EXPECT_EQ(r.guard_written, 0) << "bytes written past O's end";
          EXPECT_EQ(r.lse_written, 0) << "the packed Stats landed in the case's LSE";
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
      const Outcome r = run_varlen([&](const AttnParams& p) { return run_(c, p); }, c);
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
