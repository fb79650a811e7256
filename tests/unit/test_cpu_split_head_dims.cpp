// SPDX-License-Identifier: Apache-2.0
// Split head dims (D_v != D: V, O, dO and dV D_v wide, Q, K, dQ and dK D wide, softmax scale
// 1/sqrt(D)) on the CPU target: cpu-naive and cpu-flash against the float64 reference, called
// directly on host tensors with the output poisoned with NaN, and end to end through the case
// runner in the forward and training modes. V both narrower (D = 192, D_v = 128, DeepSeek
// style) and wider (D = 64, D_v = 128) than Q and K, so that a width mixed up either way shows.
// Tests that a wrong width or a wrong element would be caught come last.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "backends/backend.h"
#include "backends/cpu_backends.h"
#include "backends/shape_params.h"
#include "core/case.h"
#include "dtype_values.h"
#include "runner/case_runner.h"
#include "runner/platform.h"
#include "small_cases.h"
#include "verify/reference.h"

namespace fa2b {
namespace {

using test_values::get;
using test_values::put;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

Case split_case(const std::string& backend, std::int64_t H, std::int64_t H_kv, std::int64_t T_q,
                std::int64_t T_k, std::int64_t D, std::int64_t D_v, DType dt, bool causal,
                Layout layout, Mode mode) {
  Case c = test_cases::small_case("split", backend, H, H_kv, T_q, T_k, D, dt, causal, layout, mode);
  c.D_v = D_v;
  return c;
}

// Host tensors of one case filled as the runner fills them (stored_input, each tensor in its
// own width: Q and K D, V D_v), O (D_v wide) and the LSE poisoned with NaN.
struct SplitTensors {
  std::vector<std::uint8_t> q, k, v, o;
  std::vector<float> lse;
  AttnParams p;
  Strides sq{}, sk{}, sv{}, so{};

  explicit SplitTensors(const Case& c) {
    const std::int64_t eb = dtype_bytes(c.dtype);
    sq = tensor_strides(c.layout, c.H, c.T_q, c.D);
    sk = tensor_strides(c.layout, c.H_kv, c.T_k, c.D);
    sv = tensor_strides(c.layout, c.H_kv, c.T_k, c.Dv());
    so = tensor_strides(c.layout, c.H, c.T_q, c.Dv());
    q.resize(static_cast<std::size_t>(c.B * c.H * c.T_q * c.D * eb));
    k.resize(static_cast<std::size_t>(c.B * c.H_kv * c.T_k * c.D * eb));
    v.resize(static_cast<std::size_t>(c.B * c.H_kv * c.T_k * c.Dv() * eb));
    o.resize(static_cast<std::size_t>(c.B * c.H * c.T_q * c.Dv() * eb));
    fill(c, 1, q, sq, c.H, c.T_q, c.D);
    fill(c, 2, k, sk, c.H_kv, c.T_k, c.D);
    fill(c, 3, v, sv, c.H_kv, c.T_k, c.Dv());
    for (std::int64_t i = 0; i < c.B * c.H * c.T_q * c.Dv(); ++i) put(c.dtype, o, i, kNaN);
    lse.assign(static_cast<std::size_t>(c.B * c.H * c.T_q), kNaN);
    p = shape_params(c);
    p.q = q.data();
    p.k = k.data();
    p.v = v.data();
    p.o = o.data();
    p.lse = lse.data();
  }

  static void fill(const Case& c, int tensor, std::vector<std::uint8_t>& buf, const Strides& s,
                   std::int64_t heads, std::int64_t seq, std::int64_t width) {
    for (std::int64_t b = 0; b < c.B; ++b)
      for (std::int64_t h = 0; h < heads; ++h)
        for (std::int64_t t = 0; t < seq; ++t)
          for (std::int64_t d = 0; d < width; ++d)
            put(c.dtype, buf, b * s.b + h * s.h + t * s.t + d, stored_input(c, tensor, b, h, t, d));
  }

  float out(const Case& c, std::int64_t b, std::int64_t h, std::int64_t i, std::int64_t d) const {
    return get(c.dtype, o, b * so.b + h * so.h + i * so.t + d);
  }
};

struct Reference {
  std::vector<RowRef> rows;
  std::vector<double> out, lse;
  double max_abs = 0;
};

Reference make_reference(const Case& c) {
  Reference r;
  r.rows = sample_rows(c, 1 << 20, 7);  // every row
  reference_rows(c, r.rows, r.out, r.lse);
  for (double x : r.out) r.max_abs = std::max(r.max_abs, std::abs(x));
  return r;
}

// Every element of O (all D_v columns of every row) as floats, in reference row order.
std::vector<float> gather(const Case& c, const SplitTensors& t, const std::vector<RowRef>& rows) {
  std::vector<float> got;
  got.reserve(rows.size() * static_cast<std::size_t>(c.Dv()));
  for (const RowRef& r : rows)
    for (std::int64_t d = 0; d < c.Dv(); ++d) got.push_back(t.out(c, r.b, r.h, r.i, d));
  return got;
}

// Runs `backend`'s forward on host tensors and checks O (no poison left, close to the
// reference) and the LSE.
void run_forward_and_check(const std::string& backend, const Case& c, const Reference& ref) {
  SCOPED_TRACE(backend + " " + c.shape_key());
  auto be = make_backend(backend);
  ASSERT_TRUE(be->supports(c, TargetInfo{}).ok);
  SplitTensors t(c);
  HostMemoryTracker tracker;
  be->prepare(c, t.p, tracker);
  be->run(t.p, nullptr);
  be->release();
  EXPECT_EQ(tracker.current_bytes(), 0);

  const std::vector<float> got = gather(c, t, ref.rows);
  ASSERT_EQ(got.size(), static_cast<std::size_t>(c.B * c.H * c.T_q * c.Dv()));
  ASSERT_EQ(ref.out.size(), got.size());
  const std::int64_t poisoned =
      std::count_if(got.begin(), got.end(), [](float x) { return !std::isfinite(x); });
  EXPECT_EQ(poisoned, 0) << "O elements left unwritten (NaN poison)";
  const Accuracy acc = compare_rows(c, ref.rows, ref.out, got);
  EXPECT_LE(acc.max_abs_err, test_cases::output_tolerance(c.dtype) * std::max(1.0, ref.max_abs))
      << "rel_l2 " << acc.rel_l2_err;
  for (std::size_t r = 0; r < ref.rows.size(); ++r) {
    const RowRef& row = ref.rows[r];
    const float have = t.lse[static_cast<std::size_t>((row.b * c.H + row.h) * c.T_q + row.i)];
    if (std::isinf(ref.lse[r])) {
      EXPECT_TRUE(std::isinf(have) && have < 0) << "row " << row.i << " lse " << have;
    } else {
      EXPECT_NEAR(have, ref.lse[r], 1e-3 * std::max(1.0, std::abs(ref.lse[r]))) << "row " << row.i;
    }
  }
}

struct Shape {
  std::int64_t H, H_kv, T_q, T_k;
  bool causal;
  Layout layout;
};

// GQA and not, T_q != T_k both ways (causal T_q > T_k leaves rows that see no key), T = 1,
// both layouts.
const Shape kShapes[] = {
    {4, 2, 17, 33, false, Layout::bhsd}, {4, 2, 17, 33, true, Layout::bshd},
    {4, 2, 33, 17, true, Layout::bhsd},  {2, 2, 33, 17, false, Layout::bshd},
    {4, 2, 1, 1, false, Layout::bshd},   {2, 1, 1, 33, true, Layout::bhsd},
    {4, 4, 17, 17, true, Layout::bhsd},
};

struct Dims {
  std::int64_t D, D_v;
};
const Dims kDims[] = {{192, 128}, {64, 128}};

const DType kDTypes[] = {DType::fp32, DType::fp16, DType::bf16};

TEST(CpuSplitHeadDims, ForwardMatchesFloat64Reference) {
  std::size_t n = 0;
  for (const Dims& dims : kDims) {
    for (const Shape& s : kShapes) {
      const DType dt = kDTypes[n++ % 3];
      const Case c = split_case("cpu-flash", s.H, s.H_kv, s.T_q, s.T_k, dims.D, dims.D_v, dt,
                                s.causal, s.layout, Mode::fwd);
      ASSERT_TRUE(c.split_head_dims());
      const Reference ref = make_reference(c);
      run_forward_and_check("cpu-naive", c, ref);
      run_forward_and_check("cpu-flash", c, ref);
    }
  }
}

// Through the case runner (which poisons O, LSE and the gradients with NaN before the first
// run and verifies against the float64 reference): every row and key row checked.
void expect_run_matches(const CaseResult& r) {
  const Case& c = r.c;
  SCOPED_TRACE(c.backend + " " + c.id());
  ASSERT_EQ(r.status, Status::ok) << r.reason;
  ASSERT_TRUE(r.accuracy.checked);
  EXPECT_EQ(r.accuracy.rows_checked, c.B * c.H * c.T_q);
  EXPECT_EQ(r.accuracy.nonfinite, 0) << "an O element was left unwritten (NaN poison)";
  EXPECT_LE(r.accuracy.max_abs_err, test_cases::output_tolerance(c.dtype) * 2)
      << "rel_l2 " << r.accuracy.rel_l2_err;
  if (c.mode == Mode::fwd) {
    EXPECT_FALSE(r.accuracy.grads_checked);
    return;
  }
  ASSERT_TRUE(r.accuracy.grads_checked);
  EXPECT_EQ(r.accuracy.key_rows_checked, c.B * c.H_kv * c.T_k);
  EXPECT_EQ(r.accuracy.grad_nonfinite, 0) << "a gradient element was left unwritten (NaN poison)";
  for (Grad g : kGrads) {
    const ErrorStats& e = r.accuracy.of(g);
    EXPECT_LE(e.rel_l2_err, test_cases::gradient_rel_tolerance(c.dtype))
        << to_string(g) << " max " << e.max_abs_err;
    EXPECT_LE(e.max_abs_err, 20 * test_cases::gradient_rel_tolerance(c.dtype)) << to_string(g);
  }
}

TEST(CpuSplitHeadDims, RunnerForwardAndTrainingMatchFloat64Reference) {
  auto platform = make_host_platform();
  for (const char* name : {"cpu-naive", "cpu-flash"}) {
    auto backend = make_backend(name);
    std::size_t n = 0;
    for (const Dims& dims : kDims) {
      for (const Shape& s : kShapes) {
        for (Mode mode : {Mode::fwd, Mode::fwd_bwd}) {
          const DType dt = kDTypes[n++ % 3];
          const Case c = split_case(name, s.H, s.H_kv, s.T_q, s.T_k, dims.D, dims.D_v, dt, s.causal,
                                    s.layout, mode);
          expect_run_matches(run_case(c, *backend, *platform));
          EXPECT_EQ(platform->tracker().current_bytes(), 0) << "leaked tracked memory";
        }
      }
    }
  }
}

// The backward alone (its forward run outside the timed region) and a sliding window.
TEST(CpuSplitHeadDims, BwdModeAndSlidingWindowMatchReference) {
  auto platform = make_host_platform();
  for (const char* name : {"cpu-naive", "cpu-flash"}) {
    auto backend = make_backend(name);
    for (const Dims& dims : kDims) {
      Case c = split_case(name, 4, 2, 33, 17, dims.D, dims.D_v, DType::fp16, true, Layout::bshd,
                          Mode::bwd);
      expect_run_matches(run_case(c, *backend, *platform));
      c.mode = Mode::fwd_bwd;
      c.causal = false;
      c.window = {5, 3};
      expect_run_matches(run_case(c, *backend, *platform));
    }
  }
}

// D_v given equal to D is no split: the outputs are bit for bit those of D_v = 0.
TEST(CpuSplitHeadDims, DvEqualToDChangesNothing) {
  for (const char* name : {"cpu-naive", "cpu-flash"}) {
    Case c = split_case(name, 4, 2, 17, 33, 64, 0, DType::bf16, true, Layout::bshd, Mode::fwd);
    Case same = c;
    same.D_v = 64;
    ASSERT_FALSE(same.split_head_dims());
    SplitTensors a(c), b(same);
    for (auto [cs, t] : {std::pair{&c, &a}, std::pair{&same, &b}}) {
      auto be = make_backend(name);
      HostMemoryTracker tracker;
      be->prepare(*cs, t->p, tracker);
      be->run(t->p, nullptr);
      be->release();
    }
    EXPECT_EQ(a.o, b.o) << name;
    EXPECT_EQ(std::memcmp(a.lse.data(), b.lse.data(), a.lse.size() * sizeof(float)), 0) << name;
  }
}

// The reference's output really is D_v wide, it depends on all D_v columns of V, and the
// comparison catches one wrong element in a column past D (D = 64, D_v = 128) and a backend
// that treats V and O as D wide.
TEST(CpuSplitHeadDims, AWrongWidthOrElementIsCaught) {
  const Case c =
      split_case("cpu-flash", 4, 2, 17, 33, 64, 128, DType::fp32, false, Layout::bhsd, Mode::fwd);
  const Reference ref = make_reference(c);
  ASSERT_EQ(ref.out.size(), static_cast<std::size_t>(c.B * c.H * c.T_q * c.Dv()));
  // Per head T_q * D_v elements, not T_q * D.
  EXPECT_EQ(ref.out.size() / static_cast<std::size_t>(c.B * c.H),
            static_cast<std::size_t>(c.T_q * 128));
  // The columns past D are real outputs (V's columns there are not zeros).
  double past_d = 0;
  for (std::size_t r = 0; r < ref.rows.size(); ++r)
    for (std::int64_t d = c.D; d < c.Dv(); ++d)
      past_d = std::max(past_d, std::abs(ref.out[r * c.Dv() + d]));
  EXPECT_GT(past_d, 0.1);

  // The reference rounded to float passes; one element perturbed in the last column of the
  // last row is over the fp32 bound.
  std::vector<float> got(ref.out.begin(), ref.out.end());
  EXPECT_LE(compare_rows(c, ref.rows, ref.out, got).max_abs_err, 1e-6);  // float rounding
  got.back() += 1e-4f;
  EXPECT_GT(compare_rows(c, ref.rows, ref.out, got).max_abs_err,
            test_cases::output_tolerance(DType::fp32));

  // A backend blind to D_v (AttnParams::D_v cleared, the strides still the split case's) writes
  // only D columns of each O row: the rest keep their NaN poison and fail the comparison.
  SplitTensors t(c);
  t.p.D_v = 0;
  auto be = make_backend("cpu-flash");
  HostMemoryTracker tracker;
  be->prepare(c, t.p, tracker);
  be->run(t.p, nullptr);
  be->release();
  const std::vector<float> blind = gather(c, t, ref.rows);
  const Accuracy acc = compare_rows(c, ref.rows, ref.out, blind);
  EXPECT_EQ(acc.nonfinite, c.B * c.H * c.T_q * (c.Dv() - c.D));
  EXPECT_FALSE(acc.max_abs_err <= test_cases::output_tolerance(DType::fp32));
}

// cpu-flash with one wrong dV element in a column past D: the runner's dV check, D_v wide, must
// see it (a check reading dV as D wide would not look there).
class WrongDvBackend final : public Backend {
 public:
  std::string_view name() const override { return "wrong-dv"; }
  bool on_device() const override { return false; }
  Support supports(const Case& c, const TargetInfo& t) const override {
    return inner_->supports(c, t);
  }
  void prepare(const Case& c, const AttnParams& p, MemoryTracker& tracker) override {
    inner_->prepare(c, p, tracker);
  }
  void run(const AttnParams& p, void* s) override { inner_->run(p, s); }
  void run_backward(const AttnBwdParams& p, void* s) override {
    inner_->run_backward(p, s);
    // fp32 bhsd: the last element of key row 0 of (b 0, KV head 0) is column D_v - 1.
    float* dv = static_cast<float*>(p.d_v) + attn_dv(p.fwd) - 1;
    *dv += 0.5f;
  }
  void release() override { inner_->release(); }

 private:
  std::unique_ptr<Backend> inner_ = make_backend("cpu-flash");
};

TEST(CpuSplitHeadDims, AWrongDvColumnPastDIsCaughtByTheRunner) {
  auto platform = make_host_platform();
  WrongDvBackend wrong;
  auto flash = make_backend("cpu-flash");
  // The case names cpu-flash: the runner asks the catalog whether that backend takes split dims.
  const Case c = split_case("cpu-flash", 4, 2, 17, 33, 64, 128, DType::fp32, true, Layout::bhsd,
                            Mode::fwd_bwd);
  const CaseResult good = run_case(c, *flash, *platform);
  const CaseResult bad = run_case(c, wrong, *platform);
  ASSERT_EQ(good.status, Status::ok) << good.reason;
  ASSERT_EQ(bad.status, Status::ok) << bad.reason;
  EXPECT_LT(good.accuracy.of(Grad::dv).max_abs_err, 1e-5);
  EXPECT_GT(bad.accuracy.of(Grad::dv).max_abs_err, 0.4);
  EXPECT_LT(bad.accuracy.of(Grad::dq).max_abs_err, 1e-5) << "only dV was made wrong";
}

}  // namespace
}  // namespace fa2b
