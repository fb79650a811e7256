// SPDX-License-Identifier: Apache-2.0
// The float64 check of a forward kernel, shared by the fa2 and fa3 kernel tests: fresh random
// inputs, O and LSE poisoned with NaN bytes first, sampled rows against the float64 reference
// (causal masking and sliding windows included).
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "common/attn_params.h"
#include "common/device_utils.h"
#include "common/numeric.h"
#include "core/case.h"
#include "dev_buf.h"
#include "shape_text.h"
#include "verify/reference.h"

namespace fa2b {
namespace fwd_check {

using ::fa2b::DevBuf;

struct Shape {
  DType dtype = DType::bf16;
  int D = 64;
  bool causal = false;
  SlidingWindow window;  // {-1, -1}: none
  std::int64_t B = 1, H = 2, H_kv = 2, T_q = 1, T_k = 1;
  Layout layout = Layout::bhsd;
};

inline std::string describe(const Shape& s) {
  return describe_shape(s);
}

// bf16 keeps 8 mantissa bits, fp16 11; outputs are convex combinations of N(0,1) values, so
// |O| < 3.5 and one storage rounding alone is up to ~0.008 (bf16) / ~0.001 (fp16). A wrong
// mask, tail or rescale moves outputs by O(0.1) or more.
inline double max_abs_tol(DType d) {
  return d == DType::bf16 ? 3e-2 : 4e-3;
}
inline double rel_l2_tol(DType d) {
  return d == DType::bf16 ? 1e-2 : 2e-3;
}

// The forward entry points of one kernel family.
struct FwdKernel {
  bool (*supported)(const AttnParams&, std::string*);
  cudaError_t (*run)(const AttnParams&, cudaStream_t);
};

inline void run_and_check(const FwdKernel& kernel, const Shape& s) {
  SCOPED_TRACE(describe(s));
  Case c;
  c.B = s.B;
  c.H = s.H;
  c.H_kv = s.H_kv;
  c.T_q = s.T_q;
  c.T_k = s.T_k;
  c.D = s.D;
  c.dtype = s.dtype;
  c.causal = s.causal;
  c.window = s.window;
  c.layout = s.layout;
  c.measure.seed = 1234 + static_cast<std::uint64_t>(s.D * 7 + s.T_q * 13 + s.T_k);
  const KernelDType kdt = s.dtype == DType::bf16 ? KernelDType::bf16 : KernelDType::fp16;

  const Strides sq = tensor_strides(s.layout, s.H, s.T_q, s.D);
  const Strides skv = tensor_strides(s.layout, s.H_kv, s.T_k, s.D);
  const std::int64_t q_elems = s.B * s.H * s.T_q * s.D;
  const std::int64_t kv_elems = s.B * s.H_kv * s.T_k * s.D;
  DevBuf q(q_elems * 2), k(kv_elems * 2), v(kv_elems * 2), o(q_elems * 2),
      lse(s.B * s.H * s.T_q * sizeof(float));
  ASSERT_TRUE(q.ptr && k.ptr && v.ptr && o.ptr && lse.ptr) << "cudaMalloc failed";

  const std::uint64_t seed = c.measure.seed;
  const auto dist = KernelInputDist::normal;
  ASSERT_EQ(fill_inputs(q.ptr, kdt, s.B, s.H, s.T_q, s.D, sq.b, sq.h, sq.t, seed, InputTensor::q,
                        dist, nullptr),
            cudaSuccess);
  ASSERT_EQ(fill_inputs(k.ptr, kdt, s.B, s.H_kv, s.T_k, s.D, skv.b, skv.h, skv.t, seed,
                        InputTensor::k, dist, nullptr),
            cudaSuccess);
  ASSERT_EQ(fill_inputs(v.ptr, kdt, s.B, s.H_kv, s.T_k, s.D, skv.b, skv.h, skv.t, seed,
                        InputTensor::v, dist, nullptr),
            cudaSuccess);
  ASSERT_EQ(cudaMemset(o.ptr, 0xFF, q_elems * 2), cudaSuccess);
  ASSERT_EQ(cudaMemset(lse.ptr, 0xFF, s.B * s.H * s.T_q * sizeof(float)), cudaSuccess);

  AttnParams p;
  p.q = q.ptr;
  p.k = k.ptr;
  p.v = v.ptr;
  p.o = o.ptr;
  p.lse = static_cast<float*>(lse.ptr);
  p.q_batch_stride = sq.b, p.q_head_stride = sq.h, p.q_row_stride = sq.t;
  p.k_batch_stride = skv.b, p.k_head_stride = skv.h, p.k_row_stride = skv.t;
  p.v_batch_stride = skv.b, p.v_head_stride = skv.h, p.v_row_stride = skv.t;
  p.o_batch_stride = sq.b, p.o_head_stride = sq.h, p.o_row_stride = sq.t;
  p.B = static_cast<int>(s.B), p.H = static_cast<int>(s.H), p.H_kv = static_cast<int>(s.H_kv);
  p.T_q = static_cast<int>(s.T_q), p.T_k = static_cast<int>(s.T_k), p.D = s.D;
  p.scale = 1.0f / std::sqrt(static_cast<float>(s.D));
  p.causal = s.causal;
  p.window_left = static_cast<int>(s.window.left);
  p.window_right = static_cast<int>(s.window.right);
  p.dtype = kdt;
  std::string why;
  ASSERT_TRUE(kernel.supported(p, &why)) << why;
  ASSERT_EQ(kernel.run(p, nullptr), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  std::int64_t nonfinite = -1;
  ASSERT_EQ(count_nonfinite(o.ptr, kdt, q_elems, &nonfinite, nullptr), cudaSuccess);
  EXPECT_EQ(nonfinite, 0) << "O has unwritten or non-finite elements";

  // Keep the float64 reference to a few tens of millions of multiply-adds per case.
  const std::int64_t budget = 24'000'000 / (s.T_k * s.D * 2);
  const int max_rows = static_cast<int>(std::clamp<std::int64_t>(budget, 16, 256));
  const std::vector<RowRef> rows = sample_rows(c, max_rows, seed);
  std::vector<std::uint16_t> raw(static_cast<std::size_t>(s.D));
  std::vector<float> got(rows.size() * s.D);
  std::vector<float> got_lse(rows.size());
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const RowRef& row = rows[r];
    const std::int64_t off = row.b * sq.b + row.h * sq.h + row.i * sq.t;
    ASSERT_EQ(cudaMemcpy(raw.data(), static_cast<const std::uint16_t*>(o.ptr) + off, s.D * 2,
                         cudaMemcpyDeviceToHost),
              cudaSuccess);
    for (int d = 0; d < s.D; ++d) {
      got[r * s.D + d] = s.dtype == DType::bf16 ? bf16_to_float(raw[d]) : fp16_to_float(raw[d]);
    }
    const std::int64_t loff = (row.b * s.H + row.h) * s.T_q + row.i;
    ASSERT_EQ(cudaMemcpy(&got_lse[r], static_cast<const float*>(lse.ptr) + loff, sizeof(float),
                         cudaMemcpyDeviceToHost),
              cudaSuccess);
  }
  std::vector<double> ref, ref_lse;
  reference_rows(c, rows, ref, ref_lse);
  const Accuracy acc = compare_rows(c, rows, ref, got);
  EXPECT_EQ(acc.nonfinite, 0);
  EXPECT_LE(acc.max_abs_err, max_abs_tol(s.dtype));
  EXPECT_LE(acc.rel_l2_err, rel_l2_tol(s.dtype));
  int lse_bad = 0;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const double want = ref_lse[r];
    const double have = got_lse[r];
    const bool ok = std::isinf(want)
                        ? (std::isinf(have) && have < 0)
                        : std::abs(have - want) <= 1e-3 * std::max(1.0, std::abs(want));
    if (!ok && lse_bad++ < 5) {
      ADD_FAILURE() << "LSE row (" << rows[r].b << "," << rows[r].h << "," << rows[r].i << "): got "
                    << have << " want " << want;
    }
  }
  EXPECT_EQ(lse_bad, 0);
}

// FA2BENCH_TEST_MAX_T skips the sweep's lengths above it (scripts/sanitize.sh sets 1000 for
// racecheck): T = 4097 takes the code paths of T = 17 and 1000 (a one-row tail tile after full
// tiles) with 16x their shared-memory traffic, which racecheck makes minutes long.
inline std::int64_t max_test_length() {
  const char* env = std::getenv("FA2BENCH_TEST_MAX_T");
  return env != nullptr && std::atoll(env) > 0 ? std::atoll(env) : INT64_MAX;
}

// Every length of the kernel tests for one (dtype, D), both masks: T = 1, 17, 127, 1000, 4097,
// and queries and keys of different lengths (under the bottom-right causal mask the first 983
// rows of the 1000-vs-17 case see no key at all: zeros, LSE = -inf).
inline void odd_length_sweep(const FwdKernel& kernel, DType dtype, int D) {
  for (bool causal : {false, true}) {
    for (std::int64_t T : {1, 17, 127, 1000, 4097}) {
      if (T > max_test_length()) continue;
      Shape s;
      s.dtype = dtype;
      s.D = D;
      s.causal = causal;
      s.T_q = s.T_k = T;
      s.B = T > 1000 ? 1 : 2;
      run_and_check(kernel, s);
    }
    for (auto [tq, tk] : {std::pair<std::int64_t, std::int64_t>{17, 1000}, {1000, 17}}) {
      Shape s;
      s.dtype = dtype;
      s.D = D;
      s.causal = causal;
      s.T_q = tq;
      s.T_k = tk;
      run_and_check(kernel, s);
    }
  }
}

// Sliding windows (issue 20) for one (dtype, D): lengths 1, 17 and 1000, T_q != T_k both ways
// (T_q > T_k: the top rows see no key, zeros and LSE -inf), widths 0, one-sided, two-sided,
// wider than T, alone and intersected with causal; bshd and GQA on some of them.
inline void window_sweep(const FwdKernel& kernel, DType dtype, int D) {
  int n = 0;
  for (const SlidingWindow& w : kTestWindows) {
    for (auto [tq, tk] : kWindowTestLengths) {
      for (bool causal : {false, true}) {
        if (std::max(tq, tk) > max_test_length()) continue;
        Shape s;
        s.dtype = dtype;
        s.D = D;
        s.causal = causal;
        s.window = w;
        s.T_q = tq;
        s.T_k = tk;
        s.B = 2;
        if (n % 3 == 1) s.H = 4, s.H_kv = 2;  // grouped-query heads
        if (n % 4 == 2) s.layout = Layout::bshd;
        ++n;
        run_and_check(kernel, s);
      }
    }
  }
}

}  // namespace fwd_check
}  // namespace fa2b
