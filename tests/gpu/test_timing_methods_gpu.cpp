// SPDX-License-Identifier: Apache-2.0
// measure.timing on a CUDA device: on a long fa2 forward (compute-bound, milliseconds a launch)
// events, graph and cold agree within 10 %; on a short decode the graph replays many launches
// and gives a per-launch time no larger than events' (no launch gap, no flush between launches);
// cold keeps the case's peak and its verification unchanged.
#include <gtest/gtest.h>

#include <cmath>

#include "backends/backend.h"
#include "gpu_available.h"
#include "runner/case_runner.h"
#include "runner/platform.h"
#include "runner_case.h"

namespace fa2b {
namespace {

std::unique_ptr<Platform> cuda_platform() {
  std::string why;
  auto p = make_cuda_platform(0, 0, &why);
  EXPECT_NE(p, nullptr) << why;
  return p;
}

Case timed(Case c, TimingMethod t) {
  c.sweep = std::string(to_string(t));
  c.measure.timing = t;
  c.measure.warmup = 3;
  c.measure.min_samples = 10;
  c.measure.max_samples = 30;
  return c;
}

TEST(TimingMethodsGpu, AgreeOnALongForward) {
  FA2B_REQUIRE_GPU();
  auto platform = cuda_platform();
  auto backend = make_backend("fa2");
  Case c = gpu_runner_case("fa2", 2, 16, 16, 4096, 4096);
  c.causal = false;
  const CaseResult events = run_case(timed(c, TimingMethod::events), *backend, *platform);
  const CaseResult graph = run_case(timed(c, TimingMethod::graph), *backend, *platform);
  const CaseResult cold = run_case(timed(c, TimingMethod::cold), *backend, *platform);
  ASSERT_EQ(events.status, Status::ok) << events.reason;
  ASSERT_EQ(graph.status, Status::ok) << graph.reason;
  ASSERT_EQ(cold.status, Status::ok) << cold.reason;
  EXPECT_GE(graph.time.graph_launches, 1);
  EXPECT_GE(cold.time.cold_copies, 2);
  EXPECT_EQ(cold.memory.peak_bytes, events.memory.peak_bytes);
  for (const CaseResult* r : {&graph, &cold}) {
    EXPECT_NEAR(r->time.median / events.time.median, 1.0, 0.10)
        << to_string(r->c.measure.timing) << " " << r->time.median << " ms vs events "
        << events.time.median << " ms";
  }
  EXPECT_EQ(platform->tracker().current_bytes(), 0) << "leaked device memory";
}

TEST(TimingMethodsGpu, GraphAmortizesAShortDecode) {
  FA2B_REQUIRE_GPU();
  auto platform = cuda_platform();
  auto backend = make_backend("fa2");
  Case c = gpu_runner_case("fa2", 1, 32, 8, 1, 4096);
  const CaseResult events = run_case(timed(c, TimingMethod::events), *backend, *platform);
  const CaseResult graph = run_case(timed(c, TimingMethod::graph), *backend, *platform);
  const CaseResult cold = run_case(timed(c, TimingMethod::cold), *backend, *platform);
  ASSERT_EQ(events.status, Status::ok) << events.reason;
  ASSERT_EQ(graph.status, Status::ok) << graph.reason;
  ASSERT_EQ(cold.status, Status::ok) << cold.reason;
  // Under a sanitizer a launch takes milliseconds: one fills the ~1 ms replay, and launch gaps
  // are no longer what the two methods differ by.
  if (!under_sanitizer()) {
    EXPECT_GT(graph.time.graph_launches, 1);
    EXPECT_LT(graph.time.median, events.time.median)
        << "graph " << graph.time.median << " ms/launch (" << graph.time.graph_launches
        << " launches a replay) vs events " << events.time.median << " ms";
  }
  // K and V of 8 kv heads x 4096 x 128 bf16: 16 MiB a set; twice a 50 MiB L2 takes 8 sets.
  EXPECT_GE(cold.time.cold_copies, 3);
  EXPECT_LT(cold.accuracy.rel_l2_err, 1e-2);
  EXPECT_EQ(platform->tracker().current_bytes(), 0) << "leaked device memory";
}

TEST(TimingMethodsGpu, CudnnRefusesColdWithAReason) {
  FA2B_REQUIRE_GPU();
  auto platform = cuda_platform();
  auto backend = make_backend("cudnn");
  if (backend == nullptr) GTEST_SKIP() << "no cudnn backend in this build";
  const Case c = gpu_runner_case("cudnn", 1, 4, 4, 256, 256);
  const CaseResult events = run_case(timed(c, TimingMethod::events), *backend, *platform);
  if (events.status != Status::ok) GTEST_SKIP() << "cudnn does not run here: " << events.reason;
  const CaseResult r = run_case(timed(c, TimingMethod::cold), *backend, *platform);
  EXPECT_EQ(r.status, Status::unsupported);
  EXPECT_NE(r.reason.find("cold timing: cudnn"), std::string::npos) << r.reason;
}

}  // namespace
}  // namespace fa2b
