// SPDX-License-Identifier: Apache-2.0
// measure.timing (events | graph | cold): parsing and its errors, the results file's echo of it
// (absent for events, so older results stay byte-identical) and what the runner does under each
// on the host platform: events times as before, graph is refused with its reason, cold rotates
// among input copies without changing the case's peak memory.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "backends/backend.h"
#include "config/config.h"
#include "config_errors.h"
#include "io/results_json.h"
#include "probe_platform.h"
#include "runner/case_runner.h"
#include "runner/platform.h"

namespace fa2b {
namespace {

using nlohmann::json;
using test_config::has_error;

json base() {
  return json{{"name", "t"},
              {"sweeps",
               {{{"name", "s"},
                 {"backends", {"cpu-flash"}},
                 {"grid", {{"B", 1}, {"H", 2}, {"T", 17}, {"D", 32}, {"dtype", "fp16"}}}}}}};
}

TEST(TimingMethod, DefaultIsEventsAndTheConfigSetsIt) {
  json j = base();
  EXPECT_EQ(parse_config(j, "t.json").cases[0].measure.timing, TimingMethod::events);
  j["measure"] = {{"timing", "cold"}};
  EXPECT_EQ(parse_config(j, "t.json").cases[0].measure.timing, TimingMethod::cold);
  j["sweeps"][0]["measure"] = {{"timing", "graph"}};
  EXPECT_EQ(parse_config(j, "t.json").cases[0].measure.timing, TimingMethod::graph);
}

TEST(TimingMethod, BadValuesNameTheField) {
  json j = base();
  j["measure"] = {{"timing", "graphs"}};
  EXPECT_TRUE(has_error(j,
                        "/measure/timing: unknown timing method \"graphs\" (did you mean "
                        "\"graph\"?); allowed: events, graph, cold"));
  j["measure"] = {{"timing", 1}};
  EXPECT_TRUE(
      has_error(j, "/measure/timing: unknown timing method 1; allowed: events, graph, cold"));
  j["measure"] = json::object();
  j["sweeps"][0]["measure"] = {{"timing", "warm"}};
  EXPECT_TRUE(has_error(j, "/sweeps/0/measure/timing: unknown timing method \"warm\""));
}

TEST(TimingMethod, StringsRoundTrip) {
  for (TimingMethod t : {TimingMethod::events, TimingMethod::graph, TimingMethod::cold})
    EXPECT_EQ(parse_timing_method(to_string(t)), t);
  EXPECT_FALSE(parse_timing_method("Events"));
}

TEST(TimingMethod, MeasureBlockNamesItOnlyWhenNotEvents) {
  MeasureSettings m;
  EXPECT_FALSE(measure_json(m).contains("timing"));  // existing results stay byte-identical
  m.timing = TimingMethod::graph;
  EXPECT_EQ(measure_json(m).at("timing"), "graph");
  m.timing = TimingMethod::cold;
  EXPECT_EQ(measure_json(m).at("timing"), "cold");
}

Case cpu_case(TimingMethod timing, std::int64_t T) {
  Case c;
  c.sweep = std::string(to_string(timing));
  c.backend = c.role = "cpu-flash";
  c.B = 1;
  c.H = 2;
  c.H_kv = 2;
  c.T_q = c.T_k = T;
  c.D = 32;
  c.dtype = DType::fp16;
  c.measure.warmup = 1;
  c.measure.min_samples = 5;
  c.measure.max_samples = 5;
  c.measure.verify_rows = 8;
  c.measure.timing = timing;
  return c;
}

TEST(TimingMethod, EventsTimesOnTheHostAsBefore) {
  auto platform = make_host_platform();
  auto backend = make_backend("cpu-flash");
  const CaseResult r = run_case(cpu_case(TimingMethod::events, 33), *backend, *platform);
  ASSERT_EQ(r.status, Status::ok) << r.reason;
  EXPECT_EQ(r.time.n, 5);
  EXPECT_GT(r.time.median, 0);
  EXPECT_EQ(r.time.graph_launches, 0);
  EXPECT_EQ(r.time.cold_copies, 0);
}

TEST(TimingMethod, GraphIsRefusedOnTheHostWithTheReason) {
  auto platform = make_host_platform();
  std::string why;
  EXPECT_FALSE(platform->graph_support(&why));
  EXPECT_EQ(why, "graph timing needs the CUDA target");
  auto backend = make_backend("cpu-flash");
  const CaseResult r = run_case(cpu_case(TimingMethod::graph, 33), *backend, *platform);
  EXPECT_EQ(r.status, Status::unsupported);
  EXPECT_EQ(r.reason, "graph timing needs the CUDA target");
  EXPECT_EQ(r.time.n, 0);
}

TEST(TimingMethod, ColdRotatesCopiesWithoutChangingThePeak) {
  auto platform = make_host_platform();
  auto backend = make_backend("cpu-flash");
  const CaseResult events = run_case(cpu_case(TimingMethod::events, 64), *backend, *platform);
  const CaseResult cold = run_case(cpu_case(TimingMethod::cold, 64), *backend, *platform);
  ASSERT_EQ(events.status, Status::ok) << events.reason;
  ASSERT_EQ(cold.status, Status::ok) << cold.reason;
  EXPECT_EQ(cold.time.n, 5);
  EXPECT_GT(cold.time.median, 0);
  // Q, K, V of 1x2x64x32 fp16: 8 KiB each, 24 KiB a set: the cap binds below 2 x the cache.
  const std::int64_t per_set = 3 * 1 * 2 * 64 * 32 * 2;
  const std::int64_t cache = platform->cache_bytes();
  const std::int64_t want =
      std::min<std::int64_t>(kMaxColdCopies, std::max<std::int64_t>(2, 2 * cache / per_set + 2));
  EXPECT_GE(cold.time.cold_copies, 2);
  EXPECT_LE(cold.time.cold_copies, kMaxColdCopies);
  EXPECT_NEAR(cold.time.cold_copies, want, 1);
  EXPECT_EQ(cold.time.cold_copy_bytes, (cold.time.cold_copies - 1) * per_set);
  // The copies are the harness's: the case's tracked peak is the events run's.
  EXPECT_EQ(cold.memory.peak_bytes, events.memory.peak_bytes);
  EXPECT_EQ(cold.memory.workspace_bytes, events.memory.workspace_bytes);
  // Verified on the case's own inputs, like events.
  EXPECT_TRUE(cold.accuracy.checked);
  EXPECT_EQ(cold.accuracy.max_abs_err, events.accuracy.max_abs_err);
}

TEST(TimingMethod, ColdCopiesCoverTheTraining) {
  auto platform = make_host_platform();
  auto backend = make_backend("cpu-flash");
  Case c = cpu_case(TimingMethod::cold, 40);
  c.mode = Mode::fwd_bwd;
  const CaseResult r = run_case(c, *backend, *platform);
  ASSERT_EQ(r.status, Status::ok) << r.reason;
  const std::int64_t per_set = 4 * 1 * 2 * 40 * 32 * 2;  // Q, K, V and dO
  EXPECT_EQ(r.time.cold_copy_bytes, (r.time.cold_copies - 1) * per_set);
}

// The host platform with an emulated graph: a launch "takes" 0.01 ms under events; a capture
// keeps the launch and N; a replay runs it N times and "takes" 0.005 ms per launch. The runner's
// graph bookkeeping (N from the events time, sample = replay / N, graph_launches, the release,
// a failed capture) without a GPU.
class FakeGraphPlatform final : public ProbePlatform {
 public:
  explicit FakeGraphPlatform(bool capturable)
      : ProbePlatform(false, [](int) { return GpuReading{}; }), capturable_(capturable) {}
  double time_ms(const std::function<void()>& launch, bool flush) override {
    ProbePlatform::time_ms(launch, flush);
    ++event_launches;
    return 0.01;
  }
  bool graph_support(std::string*) const override { return true; }
  void capture_graph(const std::function<void()>& launch, int launches) override {
    if (!capturable_) throw std::runtime_error("graph timing: not capturable here");
    captured_ = launch;
    n_ = launches;
  }
  double time_graph_ms(bool) override {
    for (int i = 0; i < n_; ++i) captured_();
    replays++;
    return 0.005 * n_;
  }
  void release_graph() override {
    captured_ = nullptr;
    released++;
  }
  int event_launches = 0, replays = 0, released = 0;

 private:
  bool capturable_;
  std::function<void()> captured_;
  int n_ = 0;
};

TEST(TimingMethod, GraphBookkeepingWithAnEmulatedGraph) {
  FakeGraphPlatform platform(true);
  auto backend = make_backend("cpu-flash");
  const CaseResult r = run_case(cpu_case(TimingMethod::graph, 17), *backend, platform);
  ASSERT_EQ(r.status, Status::ok) << r.reason;
  EXPECT_EQ(r.time.graph_launches, 100);  // ceil(1 ms / 0.01 ms)
  EXPECT_EQ(r.time.n, 5);
  EXPECT_DOUBLE_EQ(r.time.median, 0.005);  // the replay over N, not the events time
  EXPECT_EQ(platform.replays, 1 + 5);      // one untimed replay, then the samples
  // The first (verification) run, the warm-up and the one that chose N went through events.
  EXPECT_EQ(platform.event_launches, 1 + 1 + 1);
  EXPECT_GE(platform.released, 1);
  EXPECT_TRUE(r.accuracy.checked);
}

TEST(TimingMethod, GraphCaptureFailureIsACaseError) {
  FakeGraphPlatform platform(false);
  auto backend = make_backend("cpu-flash");
  const CaseResult r = run_case(cpu_case(TimingMethod::graph, 17), *backend, platform);
  EXPECT_EQ(r.status, Status::error);
  EXPECT_EQ(r.reason, "graph timing: not capturable here");
  EXPECT_EQ(platform.tracker().current_bytes(), 0);
  // The platform goes on: the next case times with events.
  const CaseResult next = run_case(cpu_case(TimingMethod::events, 17), *backend, platform);
  EXPECT_EQ(next.status, Status::ok) << next.reason;
}

TEST(TimingMethod, ResultsEchoAndLoadIt) {
  auto platform = make_host_platform();
  auto backend = make_backend("cpu-flash");
  ResultSet rs;
  for (TimingMethod t : {TimingMethod::events, TimingMethod::graph, TimingMethod::cold})
    rs.cases.push_back(run_case(cpu_case(t, 17), *backend, *platform));
  const std::string path =
      (std::filesystem::temp_directory_path() / "fa2bench_timing_methods_results.json").string();
  write_results_json(rs, path);
  const ResultSet back = load_results(path);
  std::remove(path.c_str());
  ASSERT_EQ(back.cases.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(back.cases[i].c.measure.timing, rs.cases[i].c.measure.timing);
    EXPECT_EQ(measure_json(back.cases[i].c.measure), measure_json(rs.cases[i].c.measure));
  }
  EXPECT_EQ(back.cases[1].status, Status::unsupported);
  EXPECT_EQ(back.cases[2].time.cold_copies, rs.cases[2].time.cold_copies);
  EXPECT_EQ(back.cases[2].time.cold_copy_bytes, rs.cases[2].time.cold_copy_bytes);
}

TEST(TimingMethod, CaseJsonRoundTripsTheGraphCountAndRefusesUnknownMethods) {
  CaseResult r;
  r.c = cpu_case(TimingMethod::graph, 17);
  r.target = "cuda";
  r.status = Status::ok;
  r.time.median = 0.01;
  r.time.n = 3;
  r.time.graph_launches = 100;
  const json j = to_json(r);
  EXPECT_EQ(j.at("time_ms").at("graph_launches"), 100);
  EXPECT_FALSE(j.at("time_ms").contains("cold_copies"));
  const CaseResult back = case_result_from_json(j);
  EXPECT_EQ(back.time.graph_launches, 100);
  EXPECT_EQ(back.c.measure.timing, TimingMethod::graph);
  EXPECT_EQ(to_json(back), j);
  json bad = j;
  bad["measure"]["timing"] = "hot";
  EXPECT_THROW(case_result_from_json(bad), ResultsFileError);
}

}  // namespace
}  // namespace fa2b
