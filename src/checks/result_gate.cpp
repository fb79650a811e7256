// SPDX-License-Identifier: Apache-2.0
#include "checks/result_gate.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <set>
#include <stdexcept>

#include "checks/check_common.h"
#include "checks/checks.h"
#include "io/json_input.h"
#include "runner/case_filter.h"
#include "runner/shard.h"
#include "runner/sweep_runner.h"

namespace fa2b {
namespace {

// A case's identity within one set: two sweeps of a config may hold the same shape.
std::string case_key(const Case& c) {
  return c.sweep + "\x1f" + c.id();
}

// The cases of the whole run this set belongs to: expansion, target mapping, --filter (every
// shard of it). Throws std::invalid_argument for a recorded filter that does not compile.
std::vector<Case> run_cases(const ResultSet& rs, const Config& config) {
  std::vector<Case> cases = cases_for_target(config.cases, rs.target);
  if (!rs.filter.empty()) {
    std::string error;
    const std::optional<CaseRegex> filter = CaseRegex::compile(rs.filter, &error);
    if (!filter) throw std::invalid_argument(error);
    std::vector<Case> kept;
    for (const Case& c : cases)
      if (filter_keeps(*filter, c)) kept.push_back(c);
    cases = std::move(kept);
  }
  return cases;
}

// The cases `sweep` would have run for this set: run_cases, then its --shard.
std::vector<Case> expected_cases(const ResultSet& rs, const Config& config) {
  std::vector<Case> cases = run_cases(rs, config);
  if (rs.shard_count > 0) cases = shard_cases(cases, Shard{rs.shard_index, rs.shard_count});
  return cases;
}

// The cases the set should hold, or why that cannot be told ("" and `cases` when it can).
struct Expected {
  std::vector<Case> cases;
  std::string unknown;  // e.g. the recorded filter does not compile
};

Expected expectation(const ResultSet& rs, const Config& config) {
  try {
    return {expected_cases(rs, config), {}};
  } catch (const std::invalid_argument& e) {
    return {{},
            fmt::format("results incomplete: cannot tell which cases the recorded filter \"{}\" "
                        "kept ({})",
                        rs.filter, e.what())};
  }
}

// "results incomplete: ..." when cases are missing or the run was interrupted; "" otherwise.
// `expected` is null without a config.
std::string incompleteness(const ResultSet& rs, const Expected* expected,
                           const GateOptions& options) {
  if (!expected) {
    return rs.interrupted ? fmt::format("results incomplete: interrupted after {}",
                                        checks::plural(rs.cases.size(), "case"))
                          : std::string();
  }
  if (!expected->unknown.empty()) return expected->unknown;
  std::set<std::string> present;
  for (const CaseResult& r : rs.cases) present.insert(case_key(r.c));
  std::vector<std::string> missing;
  for (const Case& c : expected->cases)
    if (present.count(case_key(c)) == 0) missing.push_back(c.id());
  const std::size_t have = expected->cases.size() - missing.size();
  if (rs.interrupted) {
    return fmt::format("results incomplete: {} of {} cases (interrupted)", have,
                       expected->cases.size());
  }
  if (missing.empty() || options.allow_missing_cases) return {};
  return fmt::format("results incomplete: {} of {} cases; missing {}{}", have,
                     expected->cases.size(), missing.front(), checks::and_more(missing.size() - 1));
}

// What narrowed the expansion, for the message about a case outside it.
std::string narrowing(const ResultSet& rs) {
  std::string out = fmt::format("for target {}", rs.target);
  if (!rs.filter.empty()) out += fmt::format(", --filter {}", clip_echo(rs.filter, 60));
  if (rs.shard_count > 0) out += fmt::format(", shard {}/{}", rs.shard_index, rs.shard_count);
  return out;
}

std::string median_problem(double median) {
  if (std::isnan(median)) return "time_ms.median is missing";
  if (std::isinf(median)) return fmt::format("time_ms.median is {}", checks::num(median));
  if (median <= 0) return fmt::format("time_ms.median is {} (must be > 0)", checks::num(median));
  return {};
}

std::string join_reasons(const std::vector<const GateProblem*>& problems) {
  std::string out = problems.front()->reason;
  if (problems.size() > 1) out += fmt::format(" (and {} more problems)", problems.size() - 1);
  return out;
}

}  // namespace

std::vector<std::string> missing_required_metrics(const CaseResult& r) {
  std::vector<std::string> out;
  if (r.status != Status::ok) return out;
  const std::string median = median_problem(r.time.median);
  if (!median.empty()) out.push_back(median);
  if (!r.memory.recorded) out.push_back("no memory block");
  if (!r.accuracy.nonfinite_recorded) out.push_back("no accuracy.nonfinite count");
  return out;
}

std::vector<GateProblem> audit_result_set(const ResultSet& rs, const Config* config,
                                          const GateOptions& options) {
  std::vector<GateProblem> problems;
  std::optional<Expected> expected;
  if (config) expected = expectation(rs, *config);
  const std::string incomplete = incompleteness(rs, expected ? &*expected : nullptr, options);
  if (!incomplete.empty()) problems.push_back({GateProblemKind::incomplete, nullptr, incomplete});
  std::set<std::string> expected_keys;
  if (expected && expected->unknown.empty())
    for (const Case& c : expected->cases) expected_keys.insert(case_key(c));
  for (const CaseResult& r : rs.cases) {
    if (expected && expected->unknown.empty() && expected_keys.count(case_key(r.c)) == 0) {
      problems.push_back({GateProblemKind::unexpected, &r,
                          fmt::format("case {} (sweep \"{}\") is not in the config's expansion {}",
                                      r.c.id(), r.c.sweep, narrowing(rs))});
    }
    if ((r.status == Status::error || r.status == Status::timeout) && !options.allow_case_errors) {
      std::string reason = fmt::format("case {} is {}", r.c.id(), to_string(r.status));
      if (!r.reason.empty()) reason += ": " + r.reason;
      problems.push_back({GateProblemKind::case_failed, &r, reason});
    }
    for (const std::string& what : missing_required_metrics(r)) {
      problems.push_back(
          {GateProblemKind::bad_metric, &r, fmt::format("case {}: {}", r.c.id(), what)});
    }
  }
  return problems;
}

void defer_cross_shard_checks(const ResultSet& rs, const Config& config,
                              std::vector<Verdict>& verdicts) {
  if (rs.shard_count <= 1) return;
  std::vector<Case> cases;
  try {
    cases = run_cases(rs, config);
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
      if (p.result && !specs[i].select.matches(p.result->c)) continue;
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

}  // namespace fa2b
