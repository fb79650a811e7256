// SPDX-License-Identifier: Apache-2.0
// What each timed sample costs the sweep's wall time besides the kernel (issue 44): the
// platform's time_ms of an empty launch with and without the L2 flush (host wall time of the
// call: the flush, two events, the wait) and one reading of the GPU state probe (NVML), which
// the runner takes after every sample. Prints the numbers (the harness check reads them) and
// asserts only that they are finite. Skips without a GPU.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>

#include "gpu_available.h"
#include "runner/platform.h"

namespace fa2b {
namespace {

template <typename F>
double wall_ms_per_call(int n, F&& f) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
             .count() /
         n;
}

TEST(WallCosts, PerSampleOverheads) {
  FA2B_REQUIRE_GPU();
  std::string why;
  auto p = make_cuda_platform(0, 0, &why);
  ASSERT_NE(p, nullptr) << why;
  const auto empty = [] {};
  p->time_ms(empty, true);  // first use
  const double plain = wall_ms_per_call(200, [&] { p->time_ms(empty, false); });
  const double flushed = wall_ms_per_call(200, [&] { p->time_ms(empty, true); });
  double probe = NAN, light = NAN;
  if (GpuStateProbe* g = p->gpu_state_probe()) {
    g->read();
    probe = wall_ms_per_call(50, [&] { g->read(); });
    light = wall_ms_per_call(50, [&] { g->read_sample(); });
  }
  std::printf(
      "wall per sample, ms: time_ms of an empty launch %.4f; with the L2 flush %.4f; one GPU "
      "state reading (NVML) %.4f, the light one taken per sample %.4f%s\n",
      plain, flushed, probe, light,
      std::isnan(probe) ? (" (" + p->gpu_state_absent() + ")").c_str() : "");
  EXPECT_TRUE(std::isfinite(plain));
  EXPECT_TRUE(std::isfinite(flushed));
}

}  // namespace
}  // namespace fa2b
