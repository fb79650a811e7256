// SPDX-License-Identifier: Apache-2.0
// The float64 reference on the device (verify/device_reference.h, run by the CUDA platform)
// against the host reference (verify/reference.h, reference_grad.h) on odd shapes: T = 1, 17,
// 1000, 4097, T_q != T_k both ways (rows that see no key), D = 20, 40, 72, 128, 256 (the
// reference takes any D up to 256), GQA, bshd, causal, sliding windows, varlen padded and
// packed, a paged cache, fp16/bf16/fp32; forward O and LSE, and dQ, dK, dV. Both are float64:
// they must agree to 1e-12 of the largest reference magnitude. The rows the device gathers
// from the output buffers are checked too (the buffers are filled with known inputs).
// Then the runner end to end: a backend whose output (and dK) has one wrong element must come
// out with a failing accuracy, measure.verify full / none do what they say, and the device and
// host paths (FA2BENCH_HOST_REFERENCE=1) give the same accuracy. Skips without a GPU.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "core/paged_kv.h"
#include "core/seq_lengths.h"
#include "gpu_available.h"
#include "runner/case_runner.h"
#include "runner/case_verify.h"
#include "runner/platform.h"
#include "runner_case.h"
#include "scoped_env.h"
#include "verify/reference.h"
#include "verify/reference_grad.h"

namespace fa2b {
namespace {

std::unique_ptr<Platform> cuda_platform() {
  std::string why;
  auto p = make_cuda_platform(0, 0, &why);
  EXPECT_NE(p, nullptr) << why;
  return p;
}

TensorDesc describe(const Case& c, std::int64_t heads, const TokenLayout& tokens) {
  return {static_cast<int>(tokens.batches), static_cast<int>(heads), static_cast<int>(tokens.rows),
          static_cast<int>(c.D), tensor_strides(c.layout, heads, tokens.rows, c.D)};
}

std::size_t bytes_of(const Case& c, const TensorDesc& t) {
  return static_cast<std::size_t>(t.B) * t.heads * t.seq * t.D * dtype_bytes(c.dtype);
}

// A case's tensors filled as the runner fills them; O, dQ hold Q's values and dK, dV K's and
// V's, so that the rows the device gathers are known.
struct Tensors {
  TrackedBuffer q, k, v, o, d_o, dq, dk, dv, table;
  VerifyTensors vt;
};

Tensors make_tensors(const Case& c, Platform& p) {
  Tensors t;
  MemoryTracker& tr = p.tracker();
  const TensorDesc qd = describe(c, c.H, query_layout(c)), kd = describe(c, c.H_kv, key_layout(c));
  const InputDist dist = c.measure.inputs;
  const std::uint64_t seed = c.measure.seed;
  t.q = TrackedBuffer(tr, bytes_of(c, qd), "Q");
  t.o = TrackedBuffer(tr, bytes_of(c, qd), "O");
  p.fill(t.q.get(), qd, c.dtype, seed, InputTensor::q, dist);
  p.fill(t.o.get(), qd, c.dtype, seed, InputTensor::q, dist);
  if (c.paged()) {
    const auto pool = static_cast<std::size_t>(page_pool_bytes(c));
    t.k = TrackedBuffer(tr, pool, "K pages");
    t.v = TrackedBuffer(tr, pool, "V pages");
    const std::vector<std::int32_t> table = page_table(c);
    t.table = TrackedBuffer(tr, table.size() * sizeof(std::int32_t), "table");
    p.copy_from_host(t.table.get(), table.data(), table.size() * sizeof(std::int32_t));
    p.fill_paged(t.k.get(), pool, kd, static_cast<int>(c.page_size), t.table.as<std::int32_t>(),
                 c.dtype, seed, InputTensor::k, dist);
    p.fill_paged(t.v.get(), pool, kd, static_cast<int>(c.page_size), t.table.as<std::int32_t>(),
                 c.dtype, seed, InputTensor::v, dist);
  } else {
    t.k = TrackedBuffer(tr, bytes_of(c, kd), "K");
    t.v = TrackedBuffer(tr, bytes_of(c, kd), "V");
    p.fill(t.k.get(), kd, c.dtype, seed, InputTensor::k, dist);
    p.fill(t.v.get(), kd, c.dtype, seed, InputTensor::v, dist);
  }
  if (runs_backward(c.mode)) {
    t.d_o = TrackedBuffer(tr, bytes_of(c, qd), "dO");
    t.dq = TrackedBuffer(tr, bytes_of(c, qd), "dQ");
    t.dk = TrackedBuffer(tr, bytes_of(c, kd), "dK");
    t.dv = TrackedBuffer(tr, bytes_of(c, kd), "dV");
    p.fill(t.d_o.get(), qd, c.dtype, seed, InputTensor::d_o, dist);
    p.fill(t.dq.get(), qd, c.dtype, seed, InputTensor::q, dist);
    p.fill(t.dk.get(), kd, c.dtype, seed, InputTensor::k, dist);
    p.fill(t.dv.get(), kd, c.dtype, seed, InputTensor::v, dist);
  }
  p.check_after_run("fill");
  t.vt = VerifyTensors{t.q.get(),  t.k.get(),   t.v.get(),
                       t.o.get(),  t.d_o.get(), t.dq.get(),
                       t.dk.get(), t.dv.get(),  t.table.as<std::int32_t>(),
                       qd,         kd};
  return t;
}

// |device - host| <= 1e-12 * max |host| over the tensor (both float64; the device sums in
// another order). Infinite entries (the LSE of a row that sees no key) must match exactly.
void expect_close(const std::vector<double>& dev, const std::vector<double>& host,
                  const std::string& what) {
  ASSERT_EQ(dev.size(), host.size()) << what;
  double scale = 0;
  for (double x : host)
    if (std::isfinite(x)) scale = std::max(scale, std::abs(x));
  double worst = 0;
  std::size_t at = 0;
  for (std::size_t i = 0; i < host.size(); ++i) {
    if (!std::isfinite(host[i])) {
      ASSERT_EQ(dev[i], host[i]) << what << " [" << i << "]";
      continue;
    }
    const double err = std::abs(dev[i] - host[i]);
    ASSERT_FALSE(std::isnan(err)) << what << " [" << i << "]: device " << dev[i];
    if (err > worst) {
      worst = err;
      at = i;
    }
  }
  EXPECT_LE(worst, 1e-12 * std::max(scale, 1e-30))
      << what << ": worst [" << at << "] device " << dev[at] << " host " << host[at] << " (scale "
      << scale << ")";
}

// The gathered rows must be the stored inputs the buffers were filled with.
void expect_gathered(const Case& c, const std::vector<float>& got, int tensor,
                     const std::vector<RowRef>& rows, const std::string& what) {
  const TokenLayout layout = query_layout(c);
  ASSERT_EQ(got.size(), rows.size() * static_cast<std::size_t>(c.D)) << what;
  for (std::size_t r = 0; r < rows.size(); ++r)
    for (std::int64_t d = 0; d < c.D; ++d)
      ASSERT_EQ(got[r * c.D + d],
                stored_input(c, layout, tensor, rows[r].b, rows[r].h, rows[r].i, d))
          << what << " row " << r << " d " << d;
}

std::vector<RowRef> rows_for(const Case& c) {
  return sample_rows(c, 96, c.measure.seed);  // all rows of the small cases
}

void check_forward(const Case& c, const std::string& name) {
  SCOPED_TRACE(name + ": " + c.id());
  auto p = cuda_platform();
  ASSERT_NE(p, nullptr);
  Tensors t = make_tensors(c, *p);
  const std::vector<RowRef> rows = rows_for(c);
  std::vector<double> ref, lse;
  reference_rows(c, rows, ref, lse);
  RefJobOut out;
  ASSERT_TRUE(p->run_reference(forward_ref_job(c, t.vt, rows), out));
  expect_close(out.ref, ref, "O");
  expect_close(out.lse, lse, "LSE");
  expect_gathered(c, out.got, 1, rows, "gathered O");
}

void check_grads(const Case& c, const std::string& name) {
  SCOPED_TRACE(name + ": " + c.id());
  auto p = cuda_platform();
  ASSERT_NE(p, nullptr);
  Tensors t = make_tensors(c, *p);
  const std::vector<RowRef> rows = rows_for(c);
  const std::vector<KeyRowRef> keys = sample_key_rows(c, 64, c.measure.seed);
  const GradReference host = reference_grads(c, rows, keys);
  RefJobOut dq, dkdv;
  ASSERT_TRUE(p->run_reference(dq_ref_job(c, t.vt, rows), dq));
  ASSERT_TRUE(p->run_reference(dkdv_ref_job(c, t.vt, keys), dkdv));
  expect_close(dq.ref, host.dq, "dQ");
  expect_close(dkdv.ref, host.dk, "dK");
  expect_close(dkdv.ref2, host.dv, "dV");
  expect_gathered(c, dq.got, 1, rows, "gathered dQ");
  // dK/dV rows: the K and V inputs.
  ASSERT_EQ(dkdv.got.size(), keys.size() * static_cast<std::size_t>(c.D));
  for (std::size_t x = 0; x < keys.size(); ++x)
    for (std::int64_t d = 0; d < c.D; ++d) {
      ASSERT_EQ(dkdv.got[x * c.D + d], stored_input(c, 2, keys[x].b, keys[x].hk, keys[x].j, d));
      ASSERT_EQ(dkdv.got2[x * c.D + d], stored_input(c, 3, keys[x].b, keys[x].hk, keys[x].j, d));
    }
}

Case shape(std::int64_t B, std::int64_t H, std::int64_t H_kv, std::int64_t T_q, std::int64_t T_k,
           std::int64_t D, DType dt = DType::bf16) {
  Case c;
  c.backend = c.role = "reference";
  c.B = B;
  c.H = H;
  c.H_kv = H_kv;
  c.T_q = T_q;
  c.T_k = T_k;
  c.D = D;
  c.dtype = dt;
  return c;
}

TEST(DeviceReference, ForwardMatchesHostOnOddShapes) {
  FA2B_REQUIRE_GPU();
  check_forward(shape(2, 4, 2, 17, 17, 40), "GQA T=17 D=40");
  check_forward(shape(1, 2, 2, 1, 1, 20, DType::fp16), "T=1 D=20");
  Case c = shape(1, 4, 1, 1, 4097, 128);
  c.causal = true;
  check_forward(c, "decode T_k=4097 causal");
  c = shape(1, 2, 1, 1000, 4097, 72, DType::fp16);
  c.causal = true;
  c.layout = Layout::bshd;
  check_forward(c, "T_q<T_k causal bshd D=72");
  c = shape(2, 2, 2, 4097, 1000, 256);
  c.causal = true;  // the first 3097 rows see no key
  check_forward(c, "T_q>T_k causal D=256");
  c = shape(1, 4, 2, 1000, 1000, 128, DType::fp32);
  c.window = {64, 32};
  check_forward(c, "window [64, 32] fp32");
  c = shape(1, 2, 1, 17, 1000, 64);
  c.causal = true;
  c.window = {100, -1};
  c.layout = Layout::bshd;
  check_forward(c, "causal window 100 bshd T_q=17 T_k=1000");
  c = shape(1, 1, 1, 1, 1, 256, DType::bf16);
  c.measure.inputs = InputDist::large;
  check_forward(c, "large inputs D=256");
}

TEST(DeviceReference, ForwardMatchesHostOnVarlenAndPaged) {
  FA2B_REQUIRE_GPU();
  for (Packing packing : {Packing::padded, Packing::packed}) {
    Case c = shape(4, 4, 2, 1000, 1000, 64);
    c.lengths = {17, 1, 1000, 0};
    c.packing = packing;
    c.causal = true;
    if (packing == Packing::packed) c.layout = Layout::bshd;
    check_forward(c, std::string("varlen ") + std::string(to_string(packing)));
    c.causal = false;
    c.window = {8, 8};
    check_forward(c, std::string("varlen window ") + std::string(to_string(packing)));
  }
  for (std::int64_t T_q : {1, 17}) {
    Case c = shape(2, 8, 2, T_q, 1000, 128, DType::fp16);
    c.kv_layout = KvLayout::paged;
    c.page_size = 16;
    c.causal = true;
    check_forward(c, "paged 16 T_q=" + std::to_string(T_q));
    c.page_size = 256;
    c.causal = false;
    c.layout = Layout::bshd;
    check_forward(c, "paged 256 bshd T_q=" + std::to_string(T_q));
  }
}

TEST(DeviceReference, GradientsMatchHostOnOddShapes) {
  FA2B_REQUIRE_GPU();
  Case c = shape(1, 4, 2, 17, 17, 40);
  c.mode = Mode::fwd_bwd;
  c.causal = true;
  check_grads(c, "GQA T=17 D=40 causal");
  c = shape(2, 2, 1, 1, 17, 20, DType::fp16);
  c.mode = Mode::bwd;
  check_grads(c, "T_q=1 T_k=17 D=20");
  c = shape(1, 2, 2, 1000, 257, 128);
  c.mode = Mode::fwd_bwd;
  c.causal = true;  // rows 0..742 see no key
  c.layout = Layout::bshd;
  check_grads(c, "T_q>T_k causal bshd");
  c = shape(1, 4, 1, 257, 1000, 72, DType::fp32);
  c.mode = Mode::fwd_bwd;
  c.window = {40, 8};
  check_grads(c, "window [40, 8] GQA 4:1 fp32");
  c = shape(1, 2, 2, 1000, 1000, 256);
  c.mode = Mode::bwd;
  check_grads(c, "T=1000 D=256");
}

// A backend that computes correctly, then breaks one element of O (row 0 of head 0, which every
// sample includes) and of dK (key row 0 of KV head 0, likewise), when told to.
class PoisonedBackend final : public Backend {
 public:
  PoisonedBackend(std::unique_ptr<Backend> inner, bool poison)
      : inner_(std::move(inner)), poison_(poison) {}
  std::string_view name() const override { return inner_->name(); }
  bool on_device() const override { return true; }
  Support supports(const Case& c, const TargetInfo& t) const override {
    return inner_->supports(c, t);
  }
  void prepare(const Case& c, const AttnParams& p, MemoryTracker& m) override {
    inner_->prepare(c, p, m);
  }
  void run(const AttnParams& p, void* stream) override {
    inner_->run(p, stream);
    if (poison_) write_wrong(p.o, stream);
  }
  void run_backward(const AttnBwdParams& p, void* stream) override {
    inner_->run_backward(p, stream);
    if (poison_) write_wrong(p.d_k, stream);
  }
  void release() override { inner_->release(); }

 private:
  static void write_wrong(void* ptr, void* stream) {
    const std::uint16_t hundred = 0x42C8;  // 100.0 in bf16
    (void)cudaMemcpyAsync(ptr, &hundred, sizeof(hundred), cudaMemcpyHostToDevice,
                          static_cast<cudaStream_t>(stream));
    (void)cudaStreamSynchronize(static_cast<cudaStream_t>(stream));
  }
  std::unique_ptr<Backend> inner_;
  bool poison_;
};

TEST(DeviceReference, WrongOutputAndWrongDkAreCaught) {
  FA2B_REQUIRE_GPU();
  auto platform = cuda_platform();
  ASSERT_NE(platform, nullptr);
  Case c = gpu_runner_case("fa2", 2, 8, 2, 1000, 1000);  // bf16, causal, D = 128
  c.mode = Mode::fwd_bwd;
  for (bool poison : {false, true}) {
    PoisonedBackend backend(make_backend("fa2"), poison);
    const CaseResult r = run_case(c, backend, *platform);
    ASSERT_EQ(r.status, Status::ok) << r.reason;
    ASSERT_TRUE(r.accuracy.checked);
    ASSERT_TRUE(r.accuracy.grads_checked);
    if (poison) {
      EXPECT_GT(r.accuracy.max_abs_err, 50.0);
      EXPECT_GT(r.accuracy.of(Grad::dk).max_abs_err, 50.0);
      EXPECT_LT(r.accuracy.of(Grad::dv).max_abs_err, 1.0);  // only dK was broken
    } else {
      EXPECT_LT(r.accuracy.max_abs_err, 1.0);
      EXPECT_LT(r.accuracy.rel_l2_err, 2e-2);
      for (Grad g : kGrads) EXPECT_LT(r.accuracy.of(g).max_abs_err, 1.0) << to_string(g);
    }
  }
}

TEST(DeviceReference, VerifyModesInTheRunner) {
  FA2B_REQUIRE_GPU();
  auto platform = cuda_platform();
  ASSERT_NE(platform, nullptr);
  auto backend = make_backend("fa2");
  Case c = gpu_runner_case("fa2", 2, 4, 2, 300, 300);
  c.mode = Mode::fwd_bwd;
  c.measure.verify = VerifyMode::full;
  const CaseResult full = run_case(c, *backend, *platform);
  ASSERT_EQ(full.status, Status::ok) << full.reason;
  EXPECT_TRUE(full.accuracy.checked);
  EXPECT_EQ(full.accuracy.rows_checked, c.B * c.H * c.T_q);
  EXPECT_EQ(full.accuracy.key_rows_checked, c.B * c.H_kv * c.T_k);
  EXPECT_LT(full.accuracy.rel_l2_err, 2e-2);

  c.measure.verify = VerifyMode::none;
  const CaseResult none = run_case(c, *backend, *platform);
  ASSERT_EQ(none.status, Status::ok) << none.reason;
  EXPECT_FALSE(none.accuracy.checked);
  EXPECT_FALSE(none.accuracy.grads_checked);
  EXPECT_EQ(none.accuracy.rows_checked, 0);
  EXPECT_GT(none.time.n, 0);

  // The device and the host reference judge the same rows alike.
  c = gpu_runner_case("fa2", 2, 8, 2, 1000, 1000);
  c.mode = Mode::fwd_bwd;
  const CaseResult dev = run_case(c, *backend, *platform);
  CaseResult host;
  {
    const ScopedEnv env("FA2BENCH_HOST_REFERENCE", "1");
    host = run_case(c, *backend, *platform);
  }
  ASSERT_EQ(dev.status, Status::ok) << dev.reason;
  ASSERT_EQ(host.status, Status::ok) << host.reason;
  EXPECT_EQ(dev.accuracy.rows_checked, host.accuracy.rows_checked);
  // The forward is deterministic: the same output judged by two float64 references.
  EXPECT_NEAR(dev.accuracy.max_abs_err, host.accuracy.max_abs_err,
              1e-6 * host.accuracy.max_abs_err);
  EXPECT_NEAR(dev.accuracy.rel_l2_err, host.accuracy.rel_l2_err, 1e-6 * host.accuracy.rel_l2_err);
  // The backward may accumulate in another order from run to run (atomics): its rounded
  // outputs, and so their errors, need not repeat exactly; the strict comparison of the two
  // references is GradientsMatchHostOnOddShapes'.
  for (Grad g : kGrads) {
    EXPECT_NEAR(dev.accuracy.of(g).max_abs_err, host.accuracy.of(g).max_abs_err,
                0.5 * host.accuracy.of(g).max_abs_err)
        << to_string(g);
  }
  // The verification phase is far shorter on the device (not under a sanitizer, which slows
  // the device kernels, not the host's).
  if (!under_sanitizer()) {
    EXPECT_LT(dev.wall_ms.verify, host.wall_ms.verify);
  }
}

}  // namespace
}  // namespace fa2b
