// SPDX-License-Identifier: Apache-2.0
// Shared by the attention-backward GPU tests (fa2, naive, standard): the test shape, device
// tensors filled and poisoned for one backward, and the float64 reference the gradients are
// compared with. The reference recomputes the whole attention in float64 from the same
// rounded inputs (its own O and D_i, not the kernel's). dQ, dK, dV (and O) are poisoned with
// NaN bytes first, so any element the backward fails to write shows.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/device_utils.h"
#include "common/head_dims.h"
#include "common/numeric.h"
#include "core/case.h"
#include "dev_buf.h"
#include "shape_text.h"
#include "sweep_params.h"

namespace fa2b {
namespace bwd_test {

using ::fa2b::DevBuf;

struct Shape {
  DType dtype = DType::bf16;
  int D = 64;
  bool causal = false;
  SlidingWindow window;  // {-1, -1}: none
  int B = 1, H = 2, H_kv = 2, T_q = 1, T_k = 1;
  Layout layout = Layout::bhsd;
};

inline std::string describe(const Shape& s) {
  return describe_shape(s);
}

// Keys first .. last that query row i sees (last < first: none), written out from the rule
// (bottom-right aligned causal mask and sliding window, intersected) rather than taken from
// the kernels' helper, so the reference checks the rule instead of repeating its code.
inline std::pair<int, int> visible_key_range(const Shape& s, int i) {
  const std::int64_t diag = s.T_k - s.T_q;
  std::int64_t first = 0, last = s.T_k - 1;
  if (s.window.left >= 0) first = std::max<std::int64_t>(first, i + diag - s.window.left);
  if (s.window.right >= 0) last = std::min<std::int64_t>(last, i + diag + s.window.right);
  if (s.causal) last = std::min<std::int64_t>(last, i + diag);
  return {static_cast<int>(first), static_cast<int>(std::max<std::int64_t>(last, first - 1))};
}

// A [B, heads, seq, D] tensor on the host in float64, logical (b, h, i, d) order.
struct HostTensor {
  int B = 0, heads = 0, seq = 0, D = 0;
  std::vector<double> v;
  double& at(int b, int h, int i, int d) {
    return v[((static_cast<std::size_t>(b) * heads + h) * seq + i) * D + d];
  }
  double at(int b, int h, int i, int d) const {
    return v[((static_cast<std::size_t>(b) * heads + h) * seq + i) * D + d];
  }
};

inline HostTensor download(const void* dev, const Shape& s, int heads, int seq) {
  const Strides st = tensor_strides(s.layout, heads, seq, s.D);
  const std::size_t n = static_cast<std::size_t>(s.B) * heads * seq * s.D;
  std::vector<std::uint16_t> raw(n);
  EXPECT_EQ(cudaMemcpy(raw.data(), dev, n * 2, cudaMemcpyDeviceToHost), cudaSuccess);
  HostTensor t{s.B, heads, seq, s.D, std::vector<double>(n)};
  for (int b = 0; b < s.B; ++b) {
    for (int h = 0; h < heads; ++h) {
      for (int i = 0; i < seq; ++i) {
        for (int d = 0; d < s.D; ++d) {
          const std::uint16_t u = raw[b * st.b + h * st.h + i * st.t + d];
          t.at(b, h, i, d) = s.dtype == DType::bf16 ? bf16_to_float(u) : fp16_to_float(u);
        }
      }
    }
  }
  return t;
}

struct Grads {
  HostTensor dq, dk, dv;
};

// Float64 backward of softmax(scale Q K^T) V for dO, one (batch, query head) per task.
inline Grads reference(const Shape& s, const HostTensor& q, const HostTensor& k,
                       const HostTensor& v, const HostTensor& d_o) {
  Grads g{q, k, v};
  std::fill(g.dq.v.begin(), g.dq.v.end(), 0.0);
  std::fill(g.dk.v.begin(), g.dk.v.end(), 0.0);
  std::fill(g.dv.v.begin(), g.dv.v.end(), 0.0);
  const double scale = 1.0 / std::sqrt(static_cast<double>(s.D));
  const int group = s.H / s.H_kv;
  // Per query head: its own dK/dV contribution, summed into the KV head afterwards.
  std::vector<HostTensor> dk_part(s.B * s.H), dv_part(s.B * s.H);
  auto one_head = [&](int bh) {
    const int b = bh / s.H, h = bh % s.H, hk = h / group;
    HostTensor& dkp = dk_part[bh];
    HostTensor& dvp = dv_part[bh];
    dkp = HostTensor{1, 1, s.T_k, s.D, std::vector<double>(static_cast<std::size_t>(s.T_k) * s.D)};
    dvp = dkp;
    std::vector<double> p(s.T_k), dp(s.T_k), o(s.D);
    for (int i = 0; i < s.T_q; ++i) {
      const auto [first, last] = visible_key_range(s, i);
      if (last < first) continue;  // sees no key: zero output, zero gradient
      double mx = -INFINITY;
      for (int j = first; j <= last; ++j) {
        double acc = 0;
        for (int d = 0; d < s.D; ++d) acc += q.at(b, h, i, d) * k.at(b, hk, j, d);
        p[j] = acc * scale;
        mx = std::max(mx, p[j]);
      }
      double sum = 0;
      for (int j = first; j <= last; ++j) sum += (p[j] = std::exp(p[j] - mx));
      std::fill(o.begin(), o.end(), 0.0);
      for (int j = first; j <= last; ++j) {
        p[j] /= sum;
        for (int d = 0; d < s.D; ++d) o[d] += p[j] * v.at(b, hk, j, d);
      }
      double di = 0;
      for (int d = 0; d < s.D; ++d) di += d_o.at(b, h, i, d) * o[d];
      for (int j = first; j <= last; ++j) {
        double acc = 0;
        for (int d = 0; d < s.D; ++d) acc += d_o.at(b, h, i, d) * v.at(b, hk, j, d);
        dp[j] = p[j] * (acc - di);  // dS
      }
      for (int j = first; j <= last; ++j) {
        for (int d = 0; d < s.D; ++d) {
          g.dq.at(b, h, i, d) += scale * dp[j] * k.at(b, hk, j, d);
          dkp.at(0, 0, j, d) += scale * dp[j] * q.at(b, h, i, d);
          dvp.at(0, 0, j, d) += p[j] * d_o.at(b, h, i, d);
        }
      }
    }
  };
  const int tasks = s.B * s.H;
  const int workers = std::max(1, std::min<int>(tasks, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (int w = 0; w < workers; ++w) {
    pool.emplace_back([&, w] {
      for (int bh = w; bh < tasks; bh += workers) one_head(bh);
    });
  }
  for (std::thread& th : pool) th.join();
  for (int bh = 0; bh < tasks; ++bh) {
    const int b = bh / s.H, hk = (bh % s.H) / group;
    for (int j = 0; j < s.T_k; ++j) {
      for (int d = 0; d < s.D; ++d) {
        g.dk.at(b, hk, j, d) += dk_part[bh].at(0, 0, j, d);
        g.dv.at(b, hk, j, d) += dv_part[bh].at(0, 0, j, d);
      }
    }
  }
  return g;
}

// Errors relative to the reference's largest magnitude: the gradients' scale shrinks with T
// (P spreads over more keys), so absolute bounds would be loose at T = 4097 or tight at 1.
inline void expect_close(const char* name, const HostTensor& got, const HostTensor& want,
                         DType dt) {
  double max_ref = 0, max_err = 0, err2 = 0, ref2 = 0;
  std::size_t nonfinite = 0;
  for (std::size_t i = 0; i < want.v.size(); ++i) {
    if (!std::isfinite(got.v[i])) {
      ++nonfinite;
      continue;
    }
    const double e = std::abs(got.v[i] - want.v[i]);
    max_ref = std::max(max_ref, std::abs(want.v[i]));
    max_err = std::max(max_err, e);
    err2 += e * e;
    ref2 += want.v[i] * want.v[i];
  }
  EXPECT_EQ(nonfinite, 0u) << name << ": unwritten or non-finite elements";
  // bf16 keeps 8 mantissa bits, fp16 11; P and dS are rounded to them before the products
  // (as in flash-attention), so a few ulps of the largest term; a wrong mask, scale or tile
  // offset moves whole rows by O(1) relative.
  const double tol_max = dt == DType::bf16 ? 3e-2 : 5e-3;
  const double tol_l2 = dt == DType::bf16 ? 2e-2 : 3e-3;
  if (max_ref == 0) {
    // An exactly zero gradient (T = 1: one key, P = 1, so dS = dP - D_i cancels) comes back as
    // fp32 rounding noise of the O(1) terms that cancel.
    EXPECT_LE(max_err, 1e-4) << name;
    return;
  }
  EXPECT_LE(max_err / max_ref, tol_max)
      << name << ": max abs err " << max_err << ", max |ref| " << max_ref;
  EXPECT_LE(std::sqrt(err2 / std::max(ref2, 1e-300)), tol_l2) << name << ": relative L2";
}

// FA2BENCH_TEST_MAX_T skips lengths above it (scripts/sanitize.sh sets it for racecheck).
inline int max_test_length() {
  const char* env = std::getenv("FA2BENCH_TEST_MAX_T");
  return env != nullptr && std::atoi(env) > 0 ? std::atoi(env) : 1 << 30;
}

// Device tensors of one backward: random Q, K, V, dO (normal, seeded by the shape), O, dQ, dK,
// dV poisoned with 0xFF bytes (NaN in fp16 and bf16), LSE allocated, and the params that
// address them (scale 1/sqrt(D), the reference's). The forward that fills O (and LSE) and the
// backward are the caller's.
struct Problem {
  Shape s;
  std::size_t q_elems = 0, kv_elems = 0;
  std::unique_ptr<DevBuf> q, k, v, o, d_o, dq, dk, dv, lse;
  AttnBwdParams p;
};

// Fills `pr` for `s`; ASSERT-fails (check HasFatalFailure) when an allocation or fill fails.
inline void make_problem(const Shape& s, Problem& pr) {
  pr.s = s;
  const KernelDType kdt = s.dtype == DType::bf16 ? KernelDType::bf16 : KernelDType::fp16;
  const Strides sq = tensor_strides(s.layout, s.H, s.T_q, s.D);
  const Strides skv = tensor_strides(s.layout, s.H_kv, s.T_k, s.D);
  pr.q_elems = static_cast<std::size_t>(s.B) * s.H * s.T_q * s.D;
  pr.kv_elems = static_cast<std::size_t>(s.B) * s.H_kv * s.T_k * s.D;
  for (auto* buf : {&pr.q, &pr.o, &pr.d_o, &pr.dq}) *buf = std::make_unique<DevBuf>(pr.q_elems * 2);
  for (auto* buf : {&pr.k, &pr.v, &pr.dk, &pr.dv}) {
    *buf = std::make_unique<DevBuf>(pr.kv_elems * 2);
  }
  pr.lse = std::make_unique<DevBuf>(static_cast<std::size_t>(s.B) * s.H * s.T_q * 4);
  ASSERT_TRUE(pr.q->ptr && pr.k->ptr && pr.v->ptr && pr.o->ptr && pr.d_o->ptr && pr.dq->ptr &&
              pr.dk->ptr && pr.dv->ptr && pr.lse->ptr);

  const std::uint64_t seed = 777 + static_cast<std::uint64_t>(s.D * 7 + s.T_q * 13 + s.T_k);
  const auto dist = KernelInputDist::normal;
  ASSERT_EQ(fill_inputs(pr.q->ptr, kdt, s.B, s.H, s.T_q, s.D, sq.b, sq.h, sq.t, seed,
                        InputTensor::q, dist, nullptr),
            cudaSuccess);
  ASSERT_EQ(fill_inputs(pr.k->ptr, kdt, s.B, s.H_kv, s.T_k, s.D, skv.b, skv.h, skv.t, seed,
                        InputTensor::k, dist, nullptr),
            cudaSuccess);
  ASSERT_EQ(fill_inputs(pr.v->ptr, kdt, s.B, s.H_kv, s.T_k, s.D, skv.b, skv.h, skv.t, seed,
                        InputTensor::v, dist, nullptr),
            cudaSuccess);
  ASSERT_EQ(fill_inputs(pr.d_o->ptr, kdt, s.B, s.H, s.T_q, s.D, sq.b, sq.h, sq.t, seed,
                        InputTensor::d_o, dist, nullptr),
            cudaSuccess);
  for (void* out : {pr.dq->ptr, pr.o->ptr}) {
    ASSERT_EQ(cudaMemset(out, 0xFF, pr.q_elems * 2), cudaSuccess);
  }
  for (void* out : {pr.dk->ptr, pr.dv->ptr}) {
    ASSERT_EQ(cudaMemset(out, 0xFF, pr.kv_elems * 2), cudaSuccess);
  }

  AttnParams& f = pr.p.fwd;
  f.q = pr.q->ptr, f.k = pr.k->ptr, f.v = pr.v->ptr, f.o = pr.o->ptr;
  f.lse = static_cast<float*>(pr.lse->ptr);
  f.q_batch_stride = sq.b, f.q_head_stride = sq.h, f.q_row_stride = sq.t;
  f.k_batch_stride = skv.b, f.k_head_stride = skv.h, f.k_row_stride = skv.t;
  f.v_batch_stride = skv.b, f.v_head_stride = skv.h, f.v_row_stride = skv.t;
  f.o_batch_stride = sq.b, f.o_head_stride = sq.h, f.o_row_stride = sq.t;
  f.B = s.B, f.H = s.H, f.H_kv = s.H_kv, f.T_q = s.T_q, f.T_k = s.T_k, f.D = s.D;
  f.scale = 1.0f / std::sqrt(static_cast<float>(s.D));
  f.causal = s.causal;
  f.window_left = static_cast<int>(s.window.left);
  f.window_right = static_cast<int>(s.window.right);
  f.dtype = kdt;
  pr.p.d_o = pr.d_o->ptr, pr.p.d_q = pr.dq->ptr, pr.p.d_k = pr.dk->ptr, pr.p.d_v = pr.dv->ptr;
}

// Downloads Q, K, V, dO and the gradients (after the caller's forward and backward have run
// and the device is synchronised) and compares dQ, dK, dV with the float64 reference.
inline void check_grads(const Problem& pr) {
  const Shape& s = pr.s;
  const HostTensor hq = download(pr.q->ptr, s, s.H, s.T_q),
                   hk = download(pr.k->ptr, s, s.H_kv, s.T_k),
                   hv = download(pr.v->ptr, s, s.H_kv, s.T_k),
                   hdo = download(pr.d_o->ptr, s, s.H, s.T_q);
  const Grads want = reference(s, hq, hk, hv, hdo);
  expect_close("dQ", download(pr.dq->ptr, s, s.H, s.T_q), want.dq, s.dtype);
  expect_close("dK", download(pr.dk->ptr, s, s.H_kv, s.T_k), want.dk, s.dtype);
  expect_close("dV", download(pr.dv->ptr, s, s.H_kv, s.T_k), want.dv, s.dtype);
}

// The entry points of a flash-style kernel family (fa2, fa3): forward with the LSE, backward
// with an fp32 dQ workspace.
struct FlashKernels {
  bool (*bwd_supported)(const AttnParams&, std::string*);
  std::size_t (*workspace_bytes)(const AttnParams&);
  cudaError_t (*fwd)(const AttnParams&, cudaStream_t);
  cudaError_t (*bwd)(const AttnBwdParams&, void*, cudaStream_t);
};

// The family's forward then backward on a fresh problem (workspace poisoned too), checked.
inline void run_flash_and_check(const FlashKernels& kernels, const Shape& s) {
  SCOPED_TRACE(describe(s));
  Problem pr;
  make_problem(s, pr);
  if (::testing::Test::HasFatalFailure()) return;
  const AttnParams& f = pr.p.fwd;
  std::string why;
  ASSERT_TRUE(kernels.bwd_supported(f, &why)) << why;
  DevBuf ws(kernels.workspace_bytes(f));
  ASSERT_NE(ws.ptr, nullptr);
  ASSERT_EQ(cudaMemset(ws.ptr, 0xFF, kernels.workspace_bytes(f)), cudaSuccess);
  ASSERT_EQ(kernels.fwd(f, nullptr), cudaSuccess);
  ASSERT_EQ(kernels.bwd(pr.p, ws.ptr, nullptr), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  check_grads(pr);
}

// The odd-length sweep every backend's backward runs for one (dtype, D): T = 1, 17, 1000
// square, and 17 vs 1000 both ways (under the bottom-right mask the first 983 rows of
// 1000-vs-17 see no key), causal and not. `run` takes the shape and does the whole check.
template <typename Run>
void odd_length_sweep(DType dtype, int D, Run&& run) {
  for (bool causal : {false, true}) {
    for (int T : {1, 17, 1000}) {
      if (T > max_test_length()) continue;
      Shape s;
      s.dtype = dtype, s.D = D, s.causal = causal, s.T_q = s.T_k = T;
      run(s);
    }
    for (auto [tq, tk] : {std::pair<int, int>{17, 1000}, {1000, 17}}) {
      Shape s;
      s.dtype = dtype, s.D = D, s.causal = causal, s.T_q = tq, s.T_k = tk;
      run(s);
    }
  }
}

// Sliding windows (issue 20) for one (dtype, D): lengths 1, 17 and 1000, 17 vs 1000 both ways
// (keys that no row sees get zero dK and dV; rows that see no key contribute nothing), widths
// 0, one-sided, two-sided and wider than T, alone and intersected with causal; GQA and bshd on
// some. `run` takes the shape and does the whole check.
template <typename Run>
void window_sweep(DType dtype, int D, Run&& run) {
  const std::pair<int, int> lengths[] = {{1, 1}, {17, 17}, {1000, 1000}, {17, 1000}, {1000, 17}};
  int n = 0;
  for (const SlidingWindow& w : kTestWindows) {
    for (auto [tq, tk] : lengths) {
      for (bool causal : {false, true}) {
        if (std::max(tq, tk) > max_test_length()) continue;
        Shape s;
        s.dtype = dtype, s.D = D, s.causal = causal, s.window = w, s.T_q = tq, s.T_k = tk;
        if (n % 3 == 1) s.H = 4, s.H_kv = 2;  // grouped-query heads
        if (n % 4 == 2) s.layout = Layout::bshd;
        ++n;
        run(s);
      }
    }
  }
}

// bshd with T_q != T_k under the causal mask, D = 64, 128, 256, both dtypes and masks.
inline std::vector<Shape> bshd_shapes() {
  std::vector<Shape> out;
  for (DType dt : {DType::fp16, DType::bf16}) {
    for (int D : {64, 128, 256}) {
      for (bool causal : {false, true}) {
        Shape s;
        s.dtype = dt, s.D = D, s.causal = causal, s.B = 2, s.H = s.H_kv = 3;
        s.T_q = 300;
        s.T_k = causal ? 517 : 300;
        s.layout = Layout::bshd;
        out.push_back(s);
      }
    }
  }
  return out;
}

// Grouped-query heads: 8 over 2 (bhsd) and 8 over 1 (bshd, T_q != T_k), both dtypes and masks.
inline std::vector<Shape> gqa_shapes() {
  std::vector<Shape> out;
  for (DType dt : {DType::fp16, DType::bf16}) {
    for (bool causal : {false, true}) {
      Shape s;
      s.dtype = dt, s.D = 128, s.causal = causal, s.B = 2, s.H = 8, s.H_kv = 2;
      s.T_q = s.T_k = 333;
      out.push_back(s);
      s.layout = Layout::bshd;
      s.H_kv = 1;
      s.T_q = 200;
      out.push_back(s);
    }
  }
  return out;
}

using sweep_params::all_dtype_dims;
using sweep_params::DtypeDim;
using sweep_params::fa2_dtype_dims;
using sweep_params::multiple_of_8_dtype_dims;
using sweep_params::sweep_name;

}  // namespace bwd_test
}  // namespace fa2b
