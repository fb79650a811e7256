// SPDX-License-Identifier: Apache-2.0
// measure.settle_s: the wait for a throttle reason left by the case before to clear, alone
// (a scripted probe, no sleeping) and through the runner, with its results fields (the config
// key: test_config.cpp).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backends/backend.h"
#include "io/results_json.h"
#include "probe_platform.h"
#include "runner/case_runner.h"
#include "runner/settle.h"

namespace fa2b {
namespace {

// Power capped (0x4, with idle 0x1 beside it) for the first `capped` readings, then idle only.
ProbePlatform::Script capped_for(int capped) {
  return [capped](int n) { return with_reasons(n < capped ? 0x4 | 0x1 : 0x1); };
}

struct SleepLog {
  std::vector<double> slept;
  std::function<void(double)> fn() {
    return [this](double s) { slept.push_back(s); };
  }
};

TEST(Settle, WaitsUntilTheCapClears) {
  ProbePlatform::Probe probe(capped_for(3));
  SleepLog log;
  const SettleOutcome s = settle_gpu(probe, 1.0, log.fn());
  EXPECT_TRUE(s.known);
  EXPECT_TRUE(s.cleared);
  EXPECT_EQ(probe.reads(), 4);  // three capped readings, then the clear one
  EXPECT_EQ(log.slept.size(), 3u);
  EXPECT_NEAR(s.waited_s, 3 * kSettlePollSeconds, 1e-12);
  EXPECT_EQ(s.reasons_at_start, (std::vector<std::string>{"sw_power_cap"}));
}

TEST(Settle, NoWaitWhenNothingIsActive) {
  ProbePlatform::Probe probe(capped_for(0));
  SleepLog log;
  const SettleOutcome s = settle_gpu(probe, 1.0, log.fn());
  EXPECT_TRUE(s.cleared);
  EXPECT_EQ(probe.reads(), 1);
  EXPECT_TRUE(log.slept.empty());
  EXPECT_EQ(s.waited_s, 0.0);
  EXPECT_TRUE(s.reasons_at_start.empty());  // idle is not counted
}

TEST(Settle, GivesUpAtTheLimit) {
  ProbePlatform::Probe probe(capped_for(1000000));
  SleepLog log;
  const SettleOutcome s = settle_gpu(probe, 0.1, log.fn());
  EXPECT_FALSE(s.cleared);
  EXPECT_EQ(log.slept.size(), 5u);  // 0.1 s in steps of 0.02
  EXPECT_NEAR(s.waited_s, 0.1, 1e-9);
  const nlohmann::json j = settle_json(s);
  EXPECT_EQ(j["cleared"], false);
  EXPECT_EQ(j["reasons_at_start"], (std::vector<std::string>{"sw_power_cap"}));
}

TEST(Settle, DeviceWithoutReasonsIsNotWaitedFor) {
  ProbePlatform::Probe probe([](int) { return GpuReading{}; });
  SleepLog log;
  const SettleOutcome s = settle_gpu(probe, 1.0, log.fn());
  EXPECT_FALSE(s.known);
  EXPECT_TRUE(log.slept.empty());
  EXPECT_TRUE(settle_json(s).contains("absent"));
}

Case settle_case(double settle_s) {
  Case c = tiny_timed_case(3);
  c.measure.warmup = 1;
  c.measure.settle_s = settle_s;
  return c;
}

TEST(Settle, RunnerSettlesBeforeTheSamplesAndRecordsIt) {
  auto backend = make_backend("cpu-flash");
  ProbePlatform platform(true, capped_for(2));
  const CaseResult r = run_case(settle_case(1.0), *backend, platform);
  ASSERT_EQ(r.status, Status::ok) << r.reason;
  ASSERT_TRUE(r.gpu_state.contains("settle")) << r.gpu_state.dump();
  EXPECT_EQ(r.gpu_state["settle"]["cleared"], true);
  EXPECT_NEAR(r.gpu_state["settle"]["waited_s"].get<double>(), 2 * kSettlePollSeconds, 1e-12);
  // The settle readings come before the samples': none of the three samples is flagged.
  EXPECT_TRUE(r.time.throttled_at.empty());
  const nlohmann::json j = to_json(r);
  EXPECT_DOUBLE_EQ(j["measure"]["settle_s"].get<double>(), 1.0);
  EXPECT_EQ(j["gpu_state"]["settle"]["reasons_at_start"],
            (std::vector<std::string>{"sw_power_cap"}));
}

TEST(Settle, RunnerWithoutTheKeyOrAProbeDoesNotWait) {
  auto backend = make_backend("cpu-flash");
  {
    ProbePlatform platform(true, capped_for(2));
    const CaseResult r = run_case(settle_case(0.0), *backend, platform);
    ASSERT_EQ(r.status, Status::ok) << r.reason;
    EXPECT_FALSE(r.gpu_state.contains("settle"));
    EXPECT_FALSE(to_json(r)["measure"].contains("settle_s"));
    EXPECT_FALSE(r.time.throttled_at.empty());  // without the wait the cap marks samples
  }
  {
    ProbePlatform platform(false, capped_for(2));
    const CaseResult r = run_case(settle_case(1.0), *backend, platform);
    ASSERT_EQ(r.status, Status::ok) << r.reason;
    EXPECT_FALSE(r.gpu_state.contains("settle"));
    EXPECT_EQ(r.gpu_state["absent"], "no probe in this test");
  }
}

}  // namespace
}  // namespace fa2b
