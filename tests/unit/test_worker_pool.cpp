// SPDX-License-Identifier: Apache-2.0
// The isolated worker pool against fake workers (small shell scripts speaking the worker
// protocol on fd 3): one worker runs case after case; a crash or a poisoned context (the
// sticky-CUDA-error hook, which the CPU target never triggers) retires it and the next case
// gets a fresh one.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "runner/worker_pool.h"
#include "runner/worker_protocol.h"

namespace fa2b {
namespace {

std::vector<Case> three_cases() {
  std::vector<Case> cases(3);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    cases[i].sweep = "test";
    cases[i].backend = cases[i].role = "cpu-flash";
    cases[i].T_q = cases[i].T_k = 16 * static_cast<std::int64_t>(i + 1);
  }
  return cases;
}

// Where fake worker `name` lives. Per process: concurrent test runs must not rewrite each
// other's scripts.
std::string fake_path(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("fa2bench_fake_workers-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  return (dir / (name + ".sh")).string();
}

// A fake worker: `body` runs in bash with the sweep's socket on fd 3.
std::string fake_worker(const std::string& name, const std::string& body) {
  const std::string path = fake_path(name);
  std::ofstream(path) << "#!/bin/bash\n" << body << "\n";
  chmod(path.c_str(), 0755);
  return path;
}

struct PoolRun {
  std::map<std::size_t, CaseResult> results;
  int started = 0;
};

PoolRun run_pool(const std::string& exe, double timeout_s = 0) {
  WorkerSpec spec;
  spec.exe = exe;
  spec.target = "cpu";
  spec.timeout_s = timeout_s;
  auto pool = make_worker_pool(spec, {-1});
  const std::vector<Case> cases = three_cases();
  PoolRun run;
  CaseEvents events;
  events.finished = [&](std::size_t i, CaseResult r) { run.results[i] = std::move(r); };
  pool->run(cases, {0, 1, 2}, events);
  run.started = pool->workers_started();
  return run;
}

// Answers every request with the case as its result ({"case": ...} becomes {"result": ...}).
constexpr const char* kEcho = R"(exec sed -u 's/^{"case":/{"result":/' <&3 >&3)";

TEST(WorkerPool, OneWorkerRunsEveryCase) {
  const PoolRun run = run_pool(fake_worker("echo", kEcho));
  ASSERT_EQ(run.results.size(), 3u);
  for (const auto& [i, r] : run.results) {
    EXPECT_EQ(r.status, Status::ok) << r.reason;
    EXPECT_EQ(r.c.T_q, 16 * static_cast<std::int64_t>(i + 1));
  }
  EXPECT_EQ(run.started, 1);
}

TEST(WorkerPool, PoisonedWorkerIsReplacedAfterItsCase) {
  const PoolRun run = run_pool(fake_worker(
      "poisoned",
      R"(exec sed -u 's/^{"case":/{"poisoned":"fake sticky error","result":/' <&3 >&3)"));
  ASSERT_EQ(run.results.size(), 3u);
  for (const auto& [i, r] : run.results) EXPECT_EQ(r.status, Status::ok) << r.reason;
  EXPECT_EQ(run.started, 3);
}

TEST(WorkerPool, CrashCostsThatCaseOnly) {
  // Crashes on the second case it is given; the replacement answers the third.
  std::filesystem::remove(fake_path("crash") + ".crashed");
  const PoolRun run = run_pool(fake_worker("crash", R"(
n=0
while IFS= read -r line <&3; do
  n=$((n + 1))
  if [ "$n" -eq 2 ] && [ ! -e "$0.crashed" ]; then touch "$0.crashed"; kill -SEGV $$; fi
  printf '%s\n' "$line" | sed 's/^{"case":/{"result":/' >&3
done)"));
  std::filesystem::remove(fake_path("crash") + ".crashed");
  ASSERT_EQ(run.results.size(), 3u);
  EXPECT_EQ(run.results.at(0).status, Status::ok);
  EXPECT_EQ(run.results.at(1).status, Status::error);
  EXPECT_NE(run.results.at(1).reason.find("signal 11"), std::string::npos)
      << run.results.at(1).reason;
  EXPECT_NE(run.results.at(1).reason.find("before writing a result"), std::string::npos);
  EXPECT_EQ(run.results.at(2).status, Status::ok) << run.results.at(2).reason;
  EXPECT_EQ(run.started, 2);
}

TEST(WorkerPool, TimeoutKillsTheWorkerAndTheNextCaseGetsANewOne) {
  // Hangs on its first case only (a marker file says a hang already happened).
  const std::string exe = fake_worker("hang", R"(
if [ ! -e "$0.hung" ]; then touch "$0.hung"; read -r line <&3; sleep 60; fi
exec sed -u 's/^{"case":/{"result":/' <&3 >&3)");
  std::filesystem::remove(exe + ".hung");
  const PoolRun run = run_pool(exe, 0.5);
  std::filesystem::remove(exe + ".hung");
  ASSERT_EQ(run.results.size(), 3u);
  EXPECT_EQ(run.results.at(0).status, Status::timeout);
  EXPECT_NE(run.results.at(0).reason.find("--case-timeout"), std::string::npos);
  EXPECT_EQ(run.results.at(1).status, Status::ok) << run.results.at(1).reason;
  EXPECT_EQ(run.results.at(2).status, Status::ok);
  EXPECT_EQ(run.started, 2);
}

TEST(WorkerProtocol, ResultRoundTripsWithPoison) {
  WorkerResponse r;
  r.result.c = three_cases()[1];
  r.result.status = Status::oom;
  r.result.reason = "over budget";
  r.poisoned = "illegal memory access";
  r.result.wall_ms = WallTimes{1.5, 2.5, 3.5, 8.0};
  r.result.c.measure.profile_once = true;
  const WorkerResponse back = parse_response(response_line(r));
  EXPECT_EQ(back.result.status, Status::oom);
  EXPECT_EQ(back.result.reason, "over budget");
  EXPECT_EQ(back.result.c.T_q, 32);
  EXPECT_EQ(back.poisoned, "illegal memory access");
  EXPECT_EQ(back.result.wall_ms.verify, 2.5);
  EXPECT_EQ(back.result.wall_ms.total, 8.0);
  EXPECT_TRUE(back.result.c.measure.profile_once);
  const WorkerRequest q = parse_request(request_line(WorkerRequest{three_cases()[2], true}));
  EXPECT_EQ(q.c.T_q, 48);
  EXPECT_TRUE(q.dump);
  EXPECT_THROW(parse_response("{\"case\": {}}"), std::exception);
}

}  // namespace
}  // namespace fa2b
