// SPDX-License-Identifier: Apache-2.0
// Issue 13's one rule for every gate (checks/result_gate.h): incomplete sets, cases in
// error/timeout and ok cases without required metrics never pass check, merge, compare or the
// sweep's exit code. Each test below failed on the code before the rule.
#include <gtest/gtest.h>

#include <string>

#include "checks/checks.h"
#include "checks/result_gate.h"
#include "compare/compare.h"
#include "compare/merge.h"
#include "config/config.h"
#include "io/results_json.h"

namespace fa2b {
namespace {

using nlohmann::json;

const json kConfig = json::parse(R"({
  "name": "gate_test",
  "defaults": {"B": 1, "H": 2, "D": 32, "dtype": "fp16", "causal": true},
  "sweeps": [{"name": "s", "backends": ["naive", "fa2"], "grid": {"T": [16, 32, 48]}}],
  "checks": [
    {"name": "fa2_peak_small", "kind": "threshold", "metric": "peak_bytes",
     "select": {"backend": "fa2"}, "op": "<", "value": 1000},
    {"name": "naive_ok", "kind": "status", "select": {"backend": "naive"}, "expect": "ok"}
  ]
})");

Config config() {
  return parse_config(kConfig, "gate_test.json");
}

// Every case of the config, ok, fa2 with a peak of 100 bytes (so fa2_peak_small passes).
ResultSet full_set() {
  const Config cfg = config();
  ResultSet rs;
  rs.target = "cuda";
  rs.config_path = cfg.path;
  rs.config_sha256 = cfg.sha256;
  rs.config_echo = cfg.raw;
  for (const Case& c : cfg.cases) {
    CaseResult r;
    r.c = c;
    r.target = "cuda";
    r.time.median = r.time.p10 = r.time.p90 = static_cast<double>(c.T_q) / 16;
    r.memory.peak_bytes = 100;
    rs.cases.push_back(r);
  }
  return rs;
}

CaseResult& find(ResultSet& rs, const std::string& backend, std::int64_t T) {
  for (CaseResult& r : rs.cases)
    if (r.c.backend == backend && r.c.T_q == T) return r;
  throw std::runtime_error("no such case");
}

std::vector<GateProblem> audit(const ResultSet& rs, GateOptions o = {}) {
  const Config cfg = config();
  return audit_result_set(rs, &cfg, o);
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(ResultGate, CompleteSoundSetHasNoProblem) {
  EXPECT_TRUE(audit(full_set()).empty());
}

TEST(ResultGate, InterruptedSetIsIncompleteWithCounts) {
  ResultSet rs = full_set();
  rs.cases.resize(3);
  rs.interrupted = true;
  const auto problems = audit(rs, GateOptions{false, true});  // allow_missing does not excuse it
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].kind, GateProblemKind::incomplete);
  EXPECT_EQ(problems[0].reason, "results incomplete: 3 of 6 cases (interrupted)");
}

TEST(ResultGate, CasesMissingFromTheExpansionAreNamed) {
  ResultSet rs = full_set();
  rs.cases.erase(rs.cases.begin() + 1);
  const auto problems = audit(rs);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_TRUE(contains(problems[0].reason, "results incomplete: 5 of 6 cases; missing fa2/"))
      << problems[0].reason;
  EXPECT_TRUE(audit(rs, GateOptions{false, true}).empty());
}

TEST(ResultGate, RecordedFilterAndShardNarrowTheExpectedCases) {
  ResultSet rs = full_set();
  std::vector<CaseResult> kept;
  for (const CaseResult& r : rs.cases)
    if (r.c.T_q == 32) kept.push_back(r);
  rs.cases = kept;
  EXPECT_EQ(audit(rs).size(), 1u);
  rs.filter = "-T32-";
  EXPECT_TRUE(audit(rs).empty());
  // Of the 2 filtered cases (config order), shard 1/2 expects the second only.
  rs.shard_index = 1;
  rs.shard_count = 2;
  rs.cases = {kept[1]};
  EXPECT_TRUE(audit(rs).empty());
  rs.cases = {kept[0]};
  const auto problems = audit(rs);
  // Shard 1/2's case is missing, and the one present is shard 0's: outside this shard.
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_TRUE(contains(problems[0].reason, "0 of 1 cases")) << problems[0].reason;
  EXPECT_EQ(problems[1].kind, GateProblemKind::unexpected);
  EXPECT_TRUE(contains(problems[1].reason, kept[0].c.id() +
                                               " (sweep \"s\") is not in the "
                                               "config's expansion for target cuda, --filter "
                                               "-T32-, shard 1/2"))
      << problems[1].reason;
}

TEST(ResultGate, ErrorAndTimeoutCasesFailUnlessAllowed) {
  ResultSet rs = full_set();
  find(rs, "fa2", 32).status = Status::error;
  find(rs, "fa2", 32).reason = "boom";
  find(rs, "naive", 16).status = Status::timeout;
  const auto problems = audit(rs);
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0].kind, GateProblemKind::case_failed);
  EXPECT_TRUE(contains(problems[0].reason + problems[1].reason, "is error: boom"));
  EXPECT_TRUE(contains(problems[0].reason + problems[1].reason, "is timeout"));
  EXPECT_TRUE(audit(rs, GateOptions{true, false}).empty());
}

TEST(ResultGate, OkCaseWithoutUsableMedianIsAProblem) {
  const std::pair<double, std::string> medians[] = {
      {kNaN, "time_ms.median is missing"},
      {std::numeric_limits<double>::infinity(), "time_ms.median is inf"},
      {0.0, "time_ms.median is 0 (must be > 0)"},
      {-1.0, "time_ms.median is -1 (must be > 0)"}};
  for (const auto& [median, text] : medians) {
    ResultSet rs = full_set();
    find(rs, "fa2", 48).time.median = median;
    const auto problems = audit(rs);
    ASSERT_EQ(problems.size(), 1u) << text;
    EXPECT_EQ(problems[0].kind, GateProblemKind::bad_metric);
    EXPECT_TRUE(contains(problems[0].reason, text)) << problems[0].reason;
    EXPECT_TRUE(contains(problems[0].reason, "fa2/")) << problems[0].reason;
  }
}

TEST(ResultGate, MissingMemoryBlockIsNeverReadAsZero) {
  ResultSet rs = full_set();
  for (CaseResult& r : rs.cases) r.memory.peak_bytes = 0;  // as the loader leaves them
  find(rs, "fa2", 16).memory.recorded = false;
  const Config cfg = config();
  const std::vector<Verdict> v = evaluate_checks(cfg.checks, rs.cases);
  EXPECT_EQ(v[0].verdict, VerdictKind::error) << v[0].detail;  // was: pass on 0 < 1000
  EXPECT_TRUE(contains(v[0].detail, "no memory block")) << v[0].detail;
  EXPECT_EQ(audit(rs).size(), 1u);
}

TEST(ResultGate, MissingNonfiniteCountIsNeverReadAsZero) {
  CaseResult r = full_set().cases[0];
  r.accuracy.checked = true;
  r.accuracy.nonfinite_recorded = false;
  EXPECT_EQ(missing_required_metrics(r), std::vector<std::string>{"no accuracy.nonfinite count"});
  CheckSpec spec;
  spec.name = "no_nonfinite";
  spec.kind = "threshold";
  spec.metric = "nonfinite";
  spec.op = "==";
  spec.value = 0;
  const Verdict v = evaluate_checks({spec}, {r})[0];
  EXPECT_EQ(v.verdict, VerdictKind::error) << v.detail;
}

TEST(ResultGate, LoaderRecordsWhatTheFileLacks) {
  json j = to_json(full_set());
  j["cases"][0].erase("memory");
  j["cases"][1]["accuracy"].erase("nonfinite");
  j["cases"][2].erase("accuracy");
  j["shard"] = {{"index", 1}, {"count", 3}};
  j["filter"] = "T16";
  const ResultSet rs = result_set_from_json(j);
  EXPECT_FALSE(rs.cases[0].memory.recorded);
  EXPECT_TRUE(rs.cases[0].accuracy.nonfinite_recorded);
  EXPECT_FALSE(rs.cases[1].accuracy.nonfinite_recorded);
  EXPECT_FALSE(rs.cases[2].accuracy.nonfinite_recorded);
  EXPECT_TRUE(rs.cases[3].memory.recorded);
  EXPECT_EQ(rs.shard_index, 1);
  EXPECT_EQ(rs.shard_count, 3);
  EXPECT_EQ(rs.filter, "T16");
  j["shard"] = {{"index", 3}, {"count", 3}};
  EXPECT_THROW(result_set_from_json(j), ResultsFileError);
}

TEST(ResultGate, ApplyGateErrorsSelectedChecksAndAddsAVerdictForTheRest) {
  ResultSet rs = full_set();
  find(rs, "fa2", 32).status = Status::error;  // selected by fa2_peak_small only
  const Config cfg = config();
  std::vector<Verdict> v = evaluate_checks(cfg.checks, rs.cases);
  apply_gate(audit(rs), cfg.checks, v);
  ASSERT_EQ(v.size(), 2u);  // every problem is named by a check: no extra verdict
  EXPECT_EQ(v[0].verdict, VerdictKind::error);
  EXPECT_TRUE(contains(v[0].detail, "is error")) << v[0].detail;
  EXPECT_EQ(v[1].verdict, VerdictKind::pass) << v[1].detail;

  // No check left (as when --backends dropped them all): the gate's own verdict fails.
  std::vector<Verdict> none;
  apply_gate(audit(rs), {}, none);
  ASSERT_EQ(none.size(), 1u);
  EXPECT_EQ(none[0].name, "results_usable");
  EXPECT_EQ(none[0].verdict, VerdictKind::error);
}

TEST(ResultGate, IncompleteSetErrorsEveryCheck) {
  ResultSet rs = full_set();
  rs.cases.resize(4);
  rs.interrupted = true;
  const Config cfg = config();
  std::vector<Verdict> v = evaluate_checks(cfg.checks, rs.cases);
  apply_gate(audit(rs), cfg.checks, v);
  ASSERT_EQ(v.size(), 2u);
  for (const Verdict& x : v) {
    EXPECT_EQ(x.verdict, VerdictKind::error);
    EXPECT_TRUE(contains(x.detail, "results incomplete: 4 of 6 cases (interrupted)")) << x.detail;
  }
}

TEST(ResultGate, CaseOutsideTheExpansionIsAProblemWhateverTheOptions) {
  ResultSet rs = full_set();
  CaseResult extra = find(rs, "fa2", 48);
  extra.c.T_q = extra.c.T_k = 64;  // the config's grid stops at 48
  rs.cases.push_back(extra);
  const auto problems = audit(rs, GateOptions{true, true});
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].kind, GateProblemKind::unexpected);
  EXPECT_EQ(problems[0].result, &rs.cases.back());
  EXPECT_TRUE(contains(problems[0].reason, extra.c.id() + " (sweep \"s\") is not in the config's "
                                                          "expansion for target cuda"))
      << problems[0].reason;
  // The check that selects it (fa2's) gets verdict error; the naive one still passes.
  const Config cfg = config();
  std::vector<Verdict> v = evaluate_checks(cfg.checks, rs.cases);
  EXPECT_EQ(v[0].verdict, VerdictKind::pass) << v[0].detail;  // what the rule overrides
  apply_gate(problems, cfg.checks, v);
  EXPECT_EQ(v[0].verdict, VerdictKind::error);
  EXPECT_EQ(v[1].verdict, VerdictKind::pass) << v[1].detail;

  // Outside the recorded filter is outside too: the T=32 and T=48 cases of a "-T16-" run.
  rs.cases.pop_back();
  rs.filter = "-T16-";
  const auto filtered = audit(rs);
  ASSERT_EQ(filtered.size(), 4u);
  for (const GateProblem& p : filtered) {
    EXPECT_EQ(p.kind, GateProblemKind::unexpected);
    EXPECT_TRUE(contains(p.reason, "for target cuda, --filter -T16-")) << p.reason;
  }
}

TEST(ResultGate, ErroredSelectionSaysTheRecordedFilterRemovedItsCases) {
  ResultSet rs = full_set();
  std::vector<CaseResult> kept;
  for (const CaseResult& r : rs.cases)
    if (r.c.backend == "fa2") kept.push_back(r);
  rs.cases = kept;
  rs.filter = "fa2/";
  EXPECT_TRUE(audit(rs).empty());  // the filtered set is complete
  const Config cfg = config();
  std::vector<Verdict> v = evaluate_checks(cfg.checks, rs.cases);
  ASSERT_EQ(v[1].verdict, VerdictKind::error);  // naive_ok: no naive case left
  const std::string before = v[1].detail;
  explain_filtered_selections(rs, cfg, v);
  EXPECT_EQ(v[1].verdict, VerdictKind::error);
  EXPECT_EQ(v[1].detail, before + "; --filter fa2/ removed the 3 cases this check selects");
  EXPECT_EQ(v[0].verdict, VerdictKind::pass);  // a passing check is left alone
  EXPECT_FALSE(contains(v[0].detail, "--filter")) << v[0].detail;

  // Without a recorded filter nothing is added.
  rs.filter.clear();
  std::vector<Verdict> plain = evaluate_checks(cfg.checks, rs.cases);
  explain_filtered_selections(rs, cfg, plain);
  EXPECT_EQ(plain[1].detail, before);
}

TEST(ResultGate, ConfigAllowCaseErrorsIsABoolean) {
  json raw = kConfig;
  raw["allow_case_errors"] = true;
  EXPECT_TRUE(parse_config(raw, "x.json").allow_case_errors);
  EXPECT_FALSE(config().allow_case_errors);
  raw["allow_case_errors"] = "yes";
  try {
    parse_config(raw, "x.json");
    FAIL() << "a string was accepted";
  } catch (const ConfigError& e) {
    EXPECT_TRUE(contains(e.messages().at(0), "/allow_case_errors")) << e.messages().at(0);
  }
}

// --- merge -------------------------------------------------------------------------------

ResultSet shard_of(const ResultSet& whole, int index, int count) {
  ResultSet rs = whole;
  rs.cases.clear();
  for (std::size_t k = 0; k < whole.cases.size(); ++k)
    if (static_cast<int>(k % count) == index) rs.cases.push_back(whole.cases[k]);
  rs.shard_index = index;
  rs.shard_count = count;
  return rs;
}

TEST(MergeGate, PartialShardSetNamesTheMissingShardAndFails) {
  const ResultSet whole = full_set();
  const MergeOutcome m = merge_results({{"s0.json", shard_of(whole, 0, 2)}}, {});
  EXPECT_EQ(m.missing_shards, std::vector<std::string>{"1/2"});
  bool warned = false;
  for (const std::string& w : m.warnings) warned = warned || contains(w, "shard 1/2 missing");
  EXPECT_TRUE(warned);
  ASSERT_FALSE(m.gate_problems.empty());
  EXPECT_TRUE(contains(m.gate_problems[0], "results incomplete: 3 of 6 cases"))
      << m.gate_problems[0];
  for (const Verdict& v : m.merged.checks) EXPECT_EQ(v.verdict, VerdictKind::error) << v.name;

  // --allow-partial: the missing half is accepted, the checks judge what is there.
  const MergeOutcome partial =
      merge_results({{"s0.json", shard_of(whole, 0, 2)}}, MergeOptions{false, true});
  EXPECT_TRUE(partial.gate_problems.empty()) << partial.gate_problems[0];

  const MergeOutcome both =
      merge_results({{"s1.json", shard_of(whole, 1, 2)}, {"s0.json", shard_of(whole, 0, 2)}}, {});
  EXPECT_TRUE(both.missing_shards.empty());
  EXPECT_TRUE(both.gate_problems.empty()) << both.gate_problems[0];
}

TEST(MergeGate, InterruptedShardFailsEvenWithAllowPartial) {
  const ResultSet whole = full_set();
  ResultSet s1 = shard_of(whole, 1, 2);
  s1.cases.pop_back();
  s1.interrupted = true;
  const MergeOutcome m = merge_results({{"s0.json", shard_of(whole, 0, 2)}, {"s1.json", s1}},
                                       MergeOptions{false, true});
  ASSERT_EQ(m.gate_problems.size(), 1u);
  EXPECT_TRUE(contains(m.gate_problems[0], "(interrupted)")) << m.gate_problems[0];
}

// --- compare ------------------------------------------------------------------------------

Comparison compare(const ResultSet& base, const ResultSet& next, bool allow_missing = false) {
  CompareOptions o;
  o.allow_missing = allow_missing;
  return compare_results(base, "base.json", next, "new.json", o);
}

TEST(CompareGate, SoundRunsHaveNoFailure) {
  const Comparison c = compare(full_set(), full_set());
  EXPECT_FALSE(c.has_regression()) << (c.failures.empty() ? "" : c.failures[0]);
}

TEST(CompareGate, CaseOnlyInBaseFailsUnlessAllowed) {
  ResultSet next = full_set();
  next.cases.pop_back();
  const Comparison c = compare(full_set(), next);
  ASSERT_TRUE(c.has_regression());
  bool named = false;
  for (const std::string& f : c.failures) named = named || contains(f, "only in BASE");
  EXPECT_TRUE(named);
  EXPECT_FALSE(compare(full_set(), next, true).has_regression());
}

TEST(CompareGate, NewWithoutCasesOrWithoutABackendFails) {
  ResultSet empty = full_set();
  empty.cases.clear();
  const Comparison c = compare(full_set(), empty);
  ASSERT_TRUE(c.has_regression());
  EXPECT_TRUE(contains(c.failures.at(0), "new.json has no cases")) << c.failures[0];
  EXPECT_TRUE(compare(full_set(), empty, true).has_regression());

  ResultSet fa2_only = full_set();
  std::vector<CaseResult> kept;
  for (const CaseResult& r : fa2_only.cases)
    if (r.c.backend == "fa2") kept.push_back(r);
  fa2_only.cases = kept;
  const Comparison d = compare(full_set(), fa2_only);
  bool named = false;
  for (const std::string& f : d.failures) named = named || f == "backend naive is missing in NEW";
  EXPECT_TRUE(named);
}

TEST(CompareGate, UnusableNewMedianIsARegressionNamingIt) {
  ResultSet next = full_set();
  find(next, "fa2", 32).time.median = std::numeric_limits<double>::infinity();
  const Comparison c = compare(full_set(), next, true);
  EXPECT_EQ(c.counts.regressions, 1);
  EXPECT_EQ(c.counts.unusable, 1);
  EXPECT_TRUE(c.failures.empty()) << c.failures[0];  // counted once, by the case's verdict
  bool named = false;
  for (const CaseComparison& cc : c.cases)
    named = named || (cc.regression && cc.verdict == "NEW time_ms.median is inf");
  EXPECT_TRUE(named);
  // Only BASE lacking a time: nothing NEW did wrong.
  ResultSet base = full_set();
  find(base, "fa2", 32).time.median = kNaN;
  EXPECT_FALSE(compare(base, full_set()).has_regression());
}

TEST(CompareGate, NewInterruptedOrWithCrashedCasesFails) {
  ResultSet next = full_set();
  next.interrupted = true;
  EXPECT_TRUE(compare(full_set(), next, true).has_regression());
  ResultSet base = full_set(), crashed = full_set();
  find(base, "fa2", 16).status = Status::error;  // error in both: not a status change
  find(crashed, "fa2", 16).status = Status::error;
  const Comparison c = compare(base, crashed);
  EXPECT_EQ(c.counts.regressions, 0);
  ASSERT_EQ(c.failures.size(), 1u);
  EXPECT_TRUE(contains(c.failures[0], "is error")) << c.failures[0];
}

TEST(CompareGate, ErrorInBothRunsIsCountedApartFromOtherNotOkInBoth) {
  ResultSet base = full_set(), next = full_set();
  for (ResultSet* rs : {&base, &next}) {
    find(*rs, "fa2", 16).status = Status::error;  // still crashing: fails the gate
    find(*rs, "naive", 48).status = Status::oom;  // too large in both: harmless
  }
  const Comparison c = compare(base, next);
  EXPECT_EQ(c.counts.not_ok_both, 2);
  EXPECT_EQ(c.counts.failing_both, 1);
  EXPECT_EQ(c.counts.regressions, 0);
  EXPECT_TRUE(c.has_regression());  // by the NEW case in error, named in failures
  EXPECT_TRUE(contains(compare_table_text(c),
                       "2 not ok in both (1 of them error/timeout in both); 0 regressions"));
  EXPECT_EQ(compare_json(c)["counts"]["failing_both"], 1);
}

}  // namespace
}  // namespace fa2b
