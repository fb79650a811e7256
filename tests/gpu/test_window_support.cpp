// SPDX-License-Identifier: Apache-2.0
// Sliding windows across the CUDA backends (issue 20): naive and fa2 take them; cudnn,
// standard and fa3 answer `unsupported` with the reason (their supports() with an sm_90
// target: no device needed, so these run even where the kernel tests skip). Then naive and
// fa2 through the case runner on a device, forward and training step, against float64.
#include <gtest/gtest.h>

#include <string>

#include "backends/backend.h"
#include "gpu_available.h"
#include "runner/case_runner.h"
#include "runner/platform.h"
#include "runner_expect.h"

namespace fa2b {
namespace {

Case window_case(const std::string& backend, SlidingWindow w, bool causal, Mode mode) {
  Case c;
  c.sweep = "window-test";
  c.backend = c.role = backend;
  c.B = 2;
  c.H = 4;
  c.H_kv = 2;
  c.T_q = 300;
  c.T_k = 517;
  c.D = 128;
  c.dtype = DType::bf16;
  c.causal = causal;
  c.window = w;
  c.mode = mode;
  c.measure.warmup = 0;
  c.measure.min_samples = 1;
  c.measure.max_samples = 2;
  c.measure.l2_flush = false;
  c.measure.verify_rows = 512;
  return c;
}

TargetInfo sm90() {
  return sm90_target(141);
}

TEST(WindowSupport, NaiveAndFa2TakeWindowsInEveryMode) {
  for (const char* name : {"naive", "fa2"}) {
    auto backend = make_backend(name);
    ASSERT_NE(backend, nullptr) << name;
    for (Mode m : {Mode::fwd, Mode::bwd, Mode::fwd_bwd}) {
      for (SlidingWindow w : {SlidingWindow{0, 0}, SlidingWindow{128, -1}, SlidingWindow{-1, 7}}) {
        const Support s = backend->supports(window_case(name, w, false, m), sm90());
        EXPECT_TRUE(s.ok) << name << " " << to_string(m) << ": " << s.reason;
      }
    }
  }
  auto dev = make_backend("fa2-dev");  // variant 0 is fa2's own dispatch
  ASSERT_NE(dev, nullptr);
  EXPECT_TRUE(dev->supports(window_case("fa2-dev", {64, 64}, false, Mode::fwd), sm90()).ok);
}

TEST(WindowSupport, PeersWithoutWindowsSayWhy) {
  for (const char* name : {"cudnn", "standard", "fa3"}) {
    auto backend = make_backend(name);
    if (backend == nullptr) continue;  // fa3 only in builds for sm_90
    for (bool causal : {false, true}) {
      const Support s =
          backend->supports(window_case(name, {64, causal ? -1 : 64}, causal, Mode::fwd), sm90());
      EXPECT_FALSE(s.ok) << name;
      EXPECT_NE(s.reason.find(std::string(name) + " has no sliding window (window [64, "),
                std::string::npos)
          << name << ": " << s.reason;
    }
    // No window (causal included) is not refused for being a window.
    const Support plain = backend->supports(window_case(name, {}, true, Mode::fwd), sm90());
    EXPECT_EQ(plain.reason.find("sliding window"), std::string::npos)
        << name << ": " << plain.reason;
  }
}

TEST(WindowSupport, NaiveAndFa2MatchFloat64ThroughTheRunner) {
  FA2B_REQUIRE_GPU();
  std::string why;
  auto platform = make_cuda_platform(0, 0, &why);
  ASSERT_NE(platform, nullptr) << why;
  for (const char* name : {"naive", "fa2"}) {
    auto backend = make_backend(name);
    for (Mode m : {Mode::fwd, Mode::fwd_bwd}) {
      for (bool causal : {false, true}) {
        const Case c = window_case(name, {64, causal ? -1 : 16}, causal, m);
        const CaseResult r = run_case(c, *backend, *platform);
        const std::string id = c.id();
        ASSERT_EQ(r.status, Status::ok) << id << ": " << r.reason;
        EXPECT_EQ(r.accuracy.nonfinite, 0) << id;
        EXPECT_LE(r.accuracy.max_abs_err, 3e-2) << id;
        EXPECT_LE(r.accuracy.rel_l2_err, 1e-2) << id;
        if (m == Mode::fwd_bwd) {
          EXPECT_EQ(r.accuracy.grad_nonfinite, 0) << id;
          for (Grad g : kGrads) EXPECT_LE(r.accuracy.of(g).rel_l2_err, 2e-2) << id << to_string(g);
        }
        EXPECT_EQ(platform->tracker().current_bytes(), 0) << id;
      }
    }
  }
}

}  // namespace
}  // namespace fa2b
