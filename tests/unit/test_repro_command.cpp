// SPDX-License-Identifier: Apache-2.0
// A case's `repro` (issue 44): the sweep command line that re-runs that case alone. Here the
// pieces (shell quoting, the exact-id filter against the sweep's own selection rule, the
// flags carried over); e2e.repro_reruns_one_case runs the commands through a shell.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/case_regex.h"
#include "runner/case_filter.h"
#include "runner/repro_command.h"
#include "runner/sweep_runner.h"

namespace fa2b {
namespace {

TEST(ReproCommand, ShellQuotingLeavesPlainWordsAndQuotesTheRest) {
  EXPECT_EQ(shell_quote("configs/seed_notebook.json"), "configs/seed_notebook.json");
  EXPECT_EQ(shell_quote("grid.T=[1024,2048]"), "'grid.T=[1024,2048]'");
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote("$HOME`x`\"y\""), "'$HOME`x`\"y\"'");
  EXPECT_EQ(shell_quote(""), "''");
}

Case shaped(const std::string& backend, const std::string& role, std::int64_t T, bool causal) {
  Case c;
  c.sweep = "s";
  c.backend = backend;
  c.role = role;
  c.B = 1;
  c.H = c.H_kv = 2;
  c.T_q = c.T_k = T;
  c.D = 32;
  c.causal = causal;
  return c;
}

TEST(ReproCommand, TheIdFilterSelectsExactlyItsCaseAmongTheSweeps) {
  // Ids that are prefixes of one another (T16 of T160), and on the CPU target a role (fa2)
  // whose shape key the sweep's filter also matches.
  std::vector<Case> cases;
  for (const char* b : {"naive", "fa2"})
    for (std::int64_t T : {16, 160})
      for (bool causal : {true, false}) cases.push_back(shaped(b, b, T, causal));
  cases = cases_for_target(cases, "cpu");
  for (const Case& wanted : cases) {
    std::string why;
    const auto re = CaseRegex::compile(exact_id_filter(wanted.id()), &why);
    ASSERT_TRUE(re) << why;
    std::vector<std::string> kept;
    for (const Case& c : cases)
      if (filter_keeps(*re, c)) kept.push_back(c.id());
    EXPECT_EQ(kept, std::vector<std::string>{wanted.id()}) << re->pattern();
  }
}

TEST(ReproCommand, RegexMetacharactersInAnIdMatchThemselves) {
  const std::string id = "x/a.b+c*(d)|[e]{2}?^$\\";
  std::string why;
  const auto re = CaseRegex::compile(exact_id_filter(id), &why);
  ASSERT_TRUE(re) << why;
  EXPECT_TRUE(re->search(id));
  EXPECT_FALSE(re->search("x/aXb+c*(d)|[e]{2}?^$\\"));  // '.' is not any character
  EXPECT_FALSE(re->search(id + "/bwd"));
}

TEST(ReproCommand, CarriesTheSweepsFlagsAndNotItsShardOrOutput) {
  SweepManifest m;
  m.config_path = "my configs/a.json";
  m.config_file = "/abs/my configs/a.json";
  m.set = {"grid.T=[1024,2048]", "measure.seed=3"};
  m.backends = {"fa2", "naive"};
  m.inputs = "uniform";
  m.filter = "T1024";
  m.shard = Shard{1, 4};
  m.target = "cuda";
  m.memory_budget = "24GiB";
  m.case_timeout_s = 2.5;
  m.isolated = true;  // the cuda default: no flag
  CaseResult r;
  r.c = shaped("fa2", "fa2", 1024, true);
  r.device_index = 1;
  EXPECT_EQ(repro_command(m, 1500, r),
            "fa2bench sweep --config 'my configs/a.json' --filter "
            "'^fa2/B1-H2-T1024-D32/fp16/causal$' --set 'grid.T=[1024,2048]' --set measure.seed=3 "
            "--backends fa2,naive --inputs uniform --memory-budget 24GiB --case-timeout 2.5 "
            "--lock-clocks 1500 --target cuda --device 1");
}

TEST(ReproCommand, TheBuiltInConfigHasNoPathAndIsolationDiffersFromTheDefault) {
  SweepManifest m;
  m.config_path = "<built-in quickstart>";  // a label: config_file is empty
  m.target = "cpu";
  m.isolated = true;  // off by default on the cpu target
  m.profile_once = true;
  CaseResult r;
  r.c = shaped("cpu-naive", "naive", 16, false);
  EXPECT_EQ(repro_command(m, 0, r),
            "fa2bench sweep --filter '^cpu-naive/B1-H2-T16-D32/fp16/full$' --profile-once "
            "--isolate --target cpu");
}

}  // namespace
}  // namespace fa2b
