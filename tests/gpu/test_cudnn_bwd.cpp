// SPDX-License-Identifier: Apache-2.0
// cuDNN's SDPA backward (the cudnn backend in the training modes) through the Backend
// interface against the float64 reference (bwd_reference.h): the shapes every backward is
// tested at (T = 1, 17, 1000 square and 17 vs 1000 both ways, causal and not, every (dtype, D
// in 32..256 by 32); bshd; grouped-query heads), with the other backwards' error bounds. O and
// the LSE come from the backend's own forward; the backward runs twice on the same buffers,
// dQ, dK, dV poisoned with NaN bytes before each, so an unwritten element or an accumulator
// carried from the first call shows. A shape the backend refuses must come back unsupported
// with a reason; each test lists the shapes it saw refused. Then the runner's view: both
// training modes, and the tracked peak against the predicted one. Every test skips when no
// CUDA device is present or libcudnn.so.9 does not load.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/cuda/cudnn/sdpa_bwd_rules.h"
#include "bwd_reference.h"
#include "core/shape_algebra.h"
#include "gpu_available.h"
#include "runner/case_runner.h"
#include "runner/platform.h"
#include "runtime/cuda/cudnn_api.h"

namespace fa2b {
namespace {

using bwd_test::DtypeDim;
using bwd_test::Shape;

bool cudnn_loadable() {
  return cudnn_version_string() != "not found";
}

#define FA2B_REQUIRE_CUDNN()                                                  \
  do {                                                                        \
    FA2B_REQUIRE_GPU();                                                       \
    if (!cudnn_loadable()) GTEST_SKIP() << "libcudnn.so.9 not loadable here"; \
  } while (0)

Case case_of(const Shape& s, Mode mode) {
  Case c;
  c.sweep = "cudnn-bwd-test";
  c.backend = c.role = "cudnn";
  c.B = s.B;
  c.H = s.H;
  c.H_kv = s.H_kv;
  c.T_q = s.T_q;
  c.T_k = s.T_k;
  c.D = s.D;
  c.dtype = s.dtype;
  c.causal = s.causal;
  c.layout = s.layout;
  c.mode = mode;
  c.measure.warmup = 0;
  c.measure.min_samples = 1;
  c.measure.max_samples = 2;
  c.measure.l2_flush = false;
  return c;
}

// The cuDNN that loaded, as cudnnGetVersion() numbers it (91900 for 9.19.0).
std::int64_t loaded_cudnn_version() {
  const CudnnApi* api = cudnn_api();
  return api != nullptr ? static_cast<std::int64_t>(api->GetVersion()) : 0;
}

// One backend, one device, and the shapes seen refused, listed when the test ends.
class CudnnBwdTest {
 protected:
  void set_up() {
    std::string why;
    platform_ = make_cuda_platform(0, 0, &why);
    ASSERT_NE(platform_, nullptr) << why;
    backend_ = make_backend("cudnn");
    ASSERT_NE(backend_, nullptr);
  }
  void tear_down() {
    if (refused_.empty()) return;
    std::string all;
    for (const std::string& r : refused_) {
      std::cout << "[ refused  ] " << r << "\n";
      all += (all.empty() ? "" : " | ") + r;
    }
    ::testing::Test::RecordProperty("refused", all);
    std::cout << "[ refused  ] " << refused_.size() << " shape(s) unsupported, " << ran_
              << " run\n";
  }

  // The shapes cuDNN must take on this device: T_q = T_k = 1000, both masks, whenever the
  // backend's own rules (the cudnn-frontend rules for this version and device) allow the case.
  bool must_run(const Shape& s) const {
    if (s.T_q != 1000 || s.T_k != 1000) return false;
    const TargetInfo t = platform_->info();
    return sdpa_bwd_refusal(case_of(s, Mode::fwd_bwd), t.cc_major, loaded_cudnn_version()).empty();
  }

  void refused(const Shape& s, const std::string& reason) {
    EXPECT_FALSE(reason.empty()) << bwd_test::describe(s) << ": refused without a reason";
    EXPECT_FALSE(must_run(s)) << bwd_test::describe(s) << " refused: " << reason;
    refused_.push_back(bwd_test::describe(s) + ": " + reason);
  }

  void run_and_check(const Shape& s) {
    SCOPED_TRACE(bwd_test::describe(s));
    const Case c = case_of(s, Mode::fwd_bwd);
    const Support support = backend_->supports(c, platform_->info());
    if (!support.ok) {
      refused(s, support.reason);
      return;
    }
    bwd_test::Problem pr;
    bwd_test::make_problem(s, pr);
    if (::testing::Test::HasFatalFailure()) return;
    MemoryTracker& tracker = platform_->tracker();
    const std::int64_t before = tracker.current_bytes();
    try {
      backend_->prepare(c, pr.p.fwd, tracker);
    } catch (const UnsupportedCase& e) {
      const std::string reason = e.what();
      EXPECT_EQ(reason.rfind("cuDNN", 0), 0u) << reason;
      refused(s, reason);
      backend_->release();
      EXPECT_EQ(tracker.current_bytes(), before) << "leaked after a refusal";
      return;
    }
    ++ran_;
    // The dQ accumulator and row sums at least (the plans' workspaces come on top).
    EXPECT_GE(tracker.current_bytes() - before,
              backward_workspace_bytes(case_of(s, Mode::fwd_bwd)));
    // The inputs were filled on the default stream; the platform's stream does not wait for it.
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    void* stream = platform_->stream();
    backend_->run(pr.p.fwd, stream);
    backend_->run_backward(pr.p, stream);
    ASSERT_EQ(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)), cudaSuccess);
    // Again on the same buffers, as the runner's bwd mode times it: every element rewritten,
    // nothing carried over from the first call.
    ASSERT_EQ(cudaMemset(pr.dq->ptr, 0xFF, pr.q_elems * 2), cudaSuccess);
    ASSERT_EQ(cudaMemset(pr.dk->ptr, 0xFF, pr.kv_elems * 2), cudaSuccess);
    ASSERT_EQ(cudaMemset(pr.dv->ptr, 0xFF, pr.kv_elems * 2), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    backend_->run_backward(pr.p, stream);
    ASSERT_EQ(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)), cudaSuccess);
    bwd_test::check_grads(pr);
    backend_->release();
    EXPECT_EQ(tracker.current_bytes(), before) << "leaked device memory";
  }

  std::unique_ptr<Platform> platform_;
  std::unique_ptr<Backend> backend_;
  std::vector<std::string> refused_;
  int ran_ = 0;
};

class CudnnBwdSweep : public ::testing::TestWithParam<DtypeDim>, protected CudnnBwdTest {
 protected:
  void SetUp() override {
    FA2B_REQUIRE_CUDNN();
    set_up();
  }
  void TearDown() override { tear_down(); }
};

TEST_P(CudnnBwdSweep, OddLengthsBothMasks) {
  bwd_test::odd_length_sweep(GetParam().dtype, GetParam().D,
                             [this](const Shape& s) { run_and_check(s); });
  EXPECT_GT(ran_, 0) << "every shape was refused";
}

INSTANTIATE_TEST_SUITE_P(AllDims, CudnnBwdSweep, ::testing::ValuesIn(bwd_test::all_dtype_dims()),
                         bwd_test::sweep_name);

class CudnnBwd : public ::testing::Test, protected CudnnBwdTest {
 protected:
  void SetUp() override {
    FA2B_REQUIRE_CUDNN();
    set_up();
  }
  void TearDown() override { tear_down(); }
};

TEST_F(CudnnBwd, BshdLayout) {
  for (const Shape& s : bwd_test::bshd_shapes()) run_and_check(s);
  EXPECT_GT(ran_, 0) << "every shape was refused";
}

TEST_F(CudnnBwd, GroupedQueryHeads) {
  for (const Shape& s : bwd_test::gqa_shapes()) run_and_check(s);
  EXPECT_GT(ran_, 0) << "every shape was refused";
}

// What the backend itself refuses in the training modes, with the rule in the reason; the
// forward of the same shapes is unaffected.
TEST_F(CudnnBwd, RefusalsAreUnsupportedWithAReason) {
  if (loaded_cudnn_version() <= 91500) {
    GTEST_SKIP() << "cuDNN <= 9.15.0: the backend refuses T_k % 128 != 0 before these rules";
  }
  const TargetInfo t = platform_->info();
  Shape one;
  one.T_q = one.T_k = 1;
  for (Mode m : {Mode::bwd, Mode::fwd_bwd}) {
    const Support s = backend_->supports(case_of(one, m), t);
    EXPECT_FALSE(s.ok);
    EXPECT_NE(s.reason.find("T_q = T_k = 1"), std::string::npos) << s.reason;
  }
  EXPECT_TRUE(backend_->supports(case_of(one, Mode::fwd), t).ok);
  Shape odd;
  odd.D = 36;
  odd.T_q = odd.T_k = 64;
  const Support d36 = backend_->supports(case_of(odd, Mode::bwd), t);
  EXPECT_FALSE(d36.ok);
  EXPECT_NE(d36.reason.find("multiples of 8"), std::string::npos) << d36.reason;
  Shape more_rows;
  more_rows.causal = true;
  more_rows.T_q = 1000;
  more_rows.T_k = 17;
  const Support r = backend_->supports(case_of(more_rows, Mode::fwd_bwd), t);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.reason.find("T_q > T_k"), std::string::npos) << r.reason;
  // Without the causal mask 1000 vs 17 is an ordinary shape.
  more_rows.causal = false;
  EXPECT_TRUE(backend_->supports(case_of(more_rows, Mode::fwd_bwd), t).ok);
}

// "...; plan workspace bytes: forward N, backward M" at the end of a training case's
// backend_info; -1 when it is not there.
std::int64_t plan_workspace_bytes(const std::string& info) {
  const std::string tag = "; plan workspace bytes: ";
  const std::size_t at = info.find(tag);
  if (at == std::string::npos) return -1;
  long long fwd = -1, bwd = -1;
  if (std::sscanf(info.c_str() + at + tag.size(), "forward %lld, backward %lld", &fwd, &bwd) != 2)
    return -1;
  return fwd + bwd;
}

// Both training modes through the runner: status ok, the gradients checked on sampled rows,
// the engines in backend_info, and the tracked peak = the predicted one (which counts the dQ
// accumulator and row sums) + the two plans' workspaces (known only once cuDNN has built them).
TEST_F(CudnnBwd, TrainingModesThroughTheRunner) {
  std::vector<Shape> shapes;
  for (bool causal : {false, true}) {
    Shape s;
    s.dtype = DType::bf16, s.D = 128, s.causal = causal, s.B = 2, s.H = 4, s.H_kv = 4;
    s.T_q = s.T_k = 1000;
    shapes.push_back(s);
    s.dtype = DType::fp16, s.D = 64, s.H_kv = 2, s.T_q = 300, s.T_k = 517;
    s.layout = Layout::bshd;
    shapes.push_back(s);
  }
  for (const Shape& s : shapes) {
    for (Mode m : {Mode::bwd, Mode::fwd_bwd}) {
      const Case c = case_of(s, m);
      const CaseResult r = run_case(c, *backend_, *platform_);
      if (r.status == Status::unsupported) {
        refused(s, r.reason);
        continue;
      }
      ++ran_;
      ASSERT_EQ(r.status, Status::ok) << c.id() << ": " << r.reason;
      EXPECT_TRUE(r.accuracy.grads_checked) << c.id();
      EXPECT_EQ(r.accuracy.grad_nonfinite, 0) << c.id();
      EXPECT_EQ(r.accuracy.nonfinite, 0) << c.id();
      // bwd_reference.h's relative L2 bounds, on the rows the runner samples.
      const double tol = s.dtype == DType::bf16 ? 2e-2 : 3e-3;
      for (Grad g : kGrads) {
        EXPECT_LE(r.accuracy.of(g).rel_l2_err, tol) << c.id() << " " << to_string(g);
      }
      const std::int64_t plans = plan_workspace_bytes(r.backend_info);
      ASSERT_GE(plans, 0) << c.id() << ": " << r.backend_info;
      EXPECT_EQ(r.backend_info.rfind("heur ", 0), 0u) << r.backend_info;
      EXPECT_NE(r.backend_info.find("; backward: heur "), std::string::npos) << r.backend_info;
      EXPECT_EQ(r.memory.peak_bytes, r.memory.predicted_bytes + plans) << c.id();
      EXPECT_EQ(platform_->tracker().current_bytes(), 0) << c.id() << " leaked";
    }
  }
  EXPECT_GT(ran_, 0) << "every case was refused";
}

}  // namespace
}  // namespace fa2b
