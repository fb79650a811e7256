// SPDX-License-Identifier: Apache-2.0
#include "checks/result_gate.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <set>
#include <stdexcept>

#include "checks/check_common.h"
#include "checks/checks.h"
#include "checks/model_checks.h"
#include "io/json_input.h"
#include "runner/case_filter.h"
#include "runner/shard.h"
#include "runner/sweep_runner.h"

namespace fa2b {
namespace {

// A case's identity within one set: two sweeps of a config may hold the same shape.
std::string case_key(const Case& c) {
  return workload_key(c.sweep, c.id());
}

const char* noun(const WorkloadSet& set) {
  return set.kind == WorkloadKind::attention ? "case" : "step";
}

// "results incomplete: ..." when results are missing or the run was interrupted; "" otherwise.
// `expected` is null without a config.
std::string incompleteness(const WorkloadSet& set, const WorkloadExpectation* expected,
                           const GateOptions& options) {
  if (!expected) {
    return set.interrupted ? fmt::format("results incomplete: interrupted after {}",
                                         checks::plural(set.results.size(), noun(set)))
                           : std::string();
  }
  if (!expected->unknown.empty()) return expected->unknown;
  std::set<std::string> present;
  for (const WorkloadResult& r : set.results) present.insert(workload_key(r.sweep, r.id));
  std::vector<std::string> missing;
  for (const auto& [sweep, id] : expected->results)
    if (present.count(workload_key(sweep, id)) == 0) missing.push_back(id);
  const std::size_t have = expected->results.size() - missing.size();
  if (set.interrupted) {
    return fmt::format("results incomplete: {} of {} {}s (interrupted)", have,
                       expected->results.size(), noun(set));
  }
  if (missing.empty() || options.allow_missing_cases) return {};
  return fmt::format("results incomplete: {} of {} {}s; missing {}{}", have,
                     expected->results.size(), noun(set), missing.front(),
                     checks::and_more(missing.size() - 1));
}

// What narrowed the expansion, for the message about a result outside it.
std::string narrowing(const WorkloadSet& set) {
  std::string out = fmt::format("for target {}", set.target);
  if (!set.filter.empty()) out += fmt::format(", --filter {}", clip_echo(set.filter, 60));
  if (set.shard_count > 0) out += fmt::format(", shard {}/{}", set.shard_index, set.shard_count);
  return out;
}

std::string join_reasons(const std::vector<const GateProblem*>& problems) {
  std::string out = problems.front()->reason;
  if (problems.size() > 1) out += fmt::format(" (and {} more problems)", problems.size() - 1);
  return out;
}

GateProblem problem_of(GateProblemKind kind, const WorkloadResult& r, std::string reason) {
  return {kind, workload_key(r.sweep, r.id), r.selected_by, r.attention, std::move(reason)};
}

}  // namespace

std::vector<GateProblem> audit_workloads(const WorkloadSet& set,
                                         const WorkloadExpectation* expected,
                                         const GateOptions& options) {
  std::vector<GateProblem> problems;
  const std::string incomplete = incompleteness(set, expected, options);
  if (!incomplete.empty())
    problems.push_back({GateProblemKind::incomplete, {}, {}, nullptr, incomplete});
  const bool known = expected && expected->unknown.empty();
  std::set<std::string> expected_keys;
  if (known)
    for (const auto& [sweep, id] : expected->results) expected_keys.insert(workload_key(sweep, id));
  std::set<std::string> seen;
  for (const WorkloadResult& r : set.results) {
    const std::string key = workload_key(r.sweep, r.id);
    if (!seen.insert(key).second) {
      // Which copy would a check or a comparison read? Neither may be trusted.
      problems.push_back(problem_of(
          GateProblemKind::unexpected, r,
          fmt::format("{} {} (sweep \"{}\") appears more than once", noun(set), r.id, r.sweep)));
    } else if (known && expected_keys.count(key) == 0) {
      problems.push_back(problem_of(GateProblemKind::unexpected, r,
                                    fmt::format("{} {} (sweep \"{}\") is not in the config's "
                                                "expansion {}",
                                                noun(set), r.id, r.sweep, narrowing(set))));
    }
    if ((r.status == Status::error || r.status == Status::timeout) && !options.allow_case_errors) {
      std::string reason = fmt::format("{} {} is {}", noun(set), r.id, to_string(r.status));
      if (!r.reason.empty()) reason += ": " + r.reason;
      problems.push_back(problem_of(GateProblemKind::case_failed, r, reason));
    }
    for (const std::string& what : r.missing_metrics) {
      problems.push_back(problem_of(GateProblemKind::bad_metric, r,
                                    fmt::format("{} {}: {}", noun(set), r.id, what)));
    }
  }
  return problems;
}

std::vector<GateProblem> audit_result_set(const ResultSet& rs, const Config* config,
                                          const GateOptions& options) {
  std::optional<WorkloadExpectation> expected;
  if (config) expected = expected_workloads(rs, *config);
  return audit_workloads(workload_set(rs), expected ? &*expected : nullptr, options);
}

std::vector<GateProblem> audit_result_set(const ModelResultSet& rs, const Config* config,
                                          const GateOptions& options) {
  std::optional<WorkloadExpectation> expected;
  if (config) expected = expected_workloads(rs, *config);
  return audit_workloads(workload_set(rs), expected ? &*expected : nullptr, options);
}

void defer_cross_shard_checks(const ResultSet& rs, const Config& config,
                              std::vector<Verdict>& verdicts) {
  if (rs.shard_count <= 1) return;
  std::vector<Case> cases;
  try {
    cases = attention_run_cases(rs, config);
  } catch (const std::invalid_argument&) {
    return;  // audit_result_set names a recorded filter that does not compile
  }
  std::set<std::string> in_shard;
  for (const Case& c : shard_cases(cases, Shard{rs.shard_index, rs.shard_count}))
    in_shard.insert(case_key(c));
  for (std::size_t i = 0; i < config.checks.size() && i < verdicts.size(); ++i) {
    std::size_t selected = 0, elsewhere = 0;
    for (const Case& c : cases) {
      if (!config.checks[i].select.matches(c)) continue;
      ++selected;
      if (in_shard.count(case_key(c)) == 0) ++elsewhere;
    }
    if (elsewhere == 0) continue;
    Verdict& v = verdicts[i];
    v.verdict = VerdictKind::deferred;
    v.detail = fmt::format(
        "selects {} in other shards than {}/{} ({} in all): judged when `merge` joins the shards",
        checks::plural(elsewhere, "case"), rs.shard_index, rs.shard_count, selected);
  }
}

void explain_filtered_selections(const ResultSet& rs, const Config& config,
                                 std::vector<Verdict>& verdicts) {
  if (rs.filter.empty()) return;
  std::string error;
  const std::optional<CaseRegex> filter = CaseRegex::compile(rs.filter, &error);
  if (!filter) return;  // audit_result_set names a recorded filter that does not compile
  const std::vector<Case> cases = cases_for_target(config.cases, rs.target);
  for (std::size_t i = 0; i < config.checks.size() && i < verdicts.size(); ++i) {
    Verdict& v = verdicts[i];
    if (v.verdict != VerdictKind::error) continue;
    std::size_t selected = 0, removed = 0;
    for (const Case& c : cases) {
      if (!config.checks[i].select.matches(c)) continue;
      ++selected;
      if (!filter_keeps(*filter, c)) ++removed;
    }
    if (removed == 0) continue;
    v.detail +=
        fmt::format("; --filter {} removed {}the {} this check selects", clip_echo(rs.filter, 60),
                    removed == selected ? std::string() : fmt::format("{} of ", removed),
                    checks::plural(selected, "case"));
  }
}

void apply_gate(const std::vector<GateProblem>& problems, const std::vector<CheckSpec>& specs,
                std::vector<Verdict>& verdicts) {
  std::vector<bool> shown(problems.size(), false);  // named by some check's verdict
  for (std::size_t i = 0; i < specs.size() && i < verdicts.size(); ++i) {
    std::vector<const GateProblem*> affecting;
    for (std::size_t k = 0; k < problems.size(); ++k) {
      const GateProblem& p = problems[k];
      if (p.selected_by && !p.selected_by(specs[i].select)) continue;
      affecting.push_back(&p);
      shown[k] = true;
    }
    if (affecting.empty()) continue;
    Verdict& v = verdicts[i];
    std::string detail = join_reasons(affecting);
    // What the cases present would have given, for whoever fixes the run.
    if (!v.detail.empty()) {
      detail += fmt::format("; on the cases present: {}: {}", to_string(v.verdict), v.detail);
    }
    v.verdict = VerdictKind::error;
    v.detail = std::move(detail);
  }
  std::vector<const GateProblem*> unshown;
  for (std::size_t k = 0; k < problems.size(); ++k)
    if (!shown[k]) unshown.push_back(&problems[k]);
  if (unshown.empty()) return;
  Verdict gate;
  gate.name = "results_usable";
  gate.kind = "gate";
  gate.verdict = VerdictKind::error;
  gate.measured = static_cast<double>(unshown.size());
  gate.threshold = "complete, no case in error/timeout, required metrics present";
  gate.detail = join_reasons(unshown);
  verdicts.push_back(std::move(gate));
}

std::vector<GateProblem> judge_result_set(ResultSet& rs, const Config& config) {
  rs.checks = evaluate_checks(config.checks, rs.cases, rs.device);
  defer_cross_shard_checks(rs, config, rs.checks);
  explain_filtered_selections(rs, config, rs.checks);
  // The gates' one rule: cases in error/timeout (unless the config allows them), or ok cases
  // without a usable median, fail the set even when no check selects them or overrides
  // dropped every check.
  std::vector<GateProblem> problems =
      audit_result_set(rs, &config, GateOptions{config.allow_case_errors, false});
  apply_gate(problems, config.checks, rs.checks);
  return problems;
}

std::vector<GateProblem> judge_result_set(const ModelResultSet& rs, const Config& config,
                                          std::vector<Verdict>& verdicts) {
  verdicts = evaluate_model_checks(config.checks, rs.cases, rs.device);
  std::vector<GateProblem> problems =
      audit_result_set(rs, &config, GateOptions{config.allow_case_errors, false});
  apply_gate(problems, config.checks, verdicts);
  return problems;
}

}  // namespace fa2b
