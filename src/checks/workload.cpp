// SPDX-License-Identifier: Apache-2.0
#include "checks/workload.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <stdexcept>

#include "checks/check_common.h"
#include "runner/case_filter.h"
#include "runner/shard.h"
#include "runner/sweep_runner.h"

namespace fa2b {
namespace {

std::string median_problem(double median) {
  if (std::isnan(median)) return "time_ms.median is missing";
  if (std::isinf(median)) return fmt::format("time_ms.median is {}", checks::num(median));
  if (median <= 0) return fmt::format("time_ms.median is {} (must be > 0)", checks::num(median));
  return {};
}

// What an ok training step lacks of what every gate needs (the reader refuses most of it;
// the rule is stated here once more so that a set built in memory is judged the same way).
std::vector<std::string> missing_step_metrics(const ModelCaseRecord& r) {
  std::vector<std::string> out;
  if (r.status != Status::ok) return out;
  if (!std::isfinite(r.step_ms) || r.step_ms <= 0)
    out.push_back(fmt::format("step_ms is {} (must be finite and > 0)", checks::num(r.step_ms)));
  if (r.peak_bytes <= 0) out.push_back(fmt::format("peak_bytes is {}", r.peak_bytes));
  if (!std::isfinite(r.tokens_per_s) || r.tokens_per_s < 0)
    out.push_back(fmt::format("tokens_per_s is {}", checks::num(r.tokens_per_s)));
  return out;
}

}  // namespace

const char* to_string(WorkloadKind kind) {
  return kind == WorkloadKind::attention ? "attention case" : "training step";
}

std::string workload_key(const std::string& sweep, const std::string& id) {
  return sweep + "\x1f" + id;
}

std::vector<std::string> missing_required_metrics(const CaseResult& r) {
  std::vector<std::string> out;
  if (r.status != Status::ok) return out;
  const std::string median = median_problem(r.time.median);
  if (!median.empty()) out.push_back(median);
  if (!r.memory.recorded) out.push_back("no memory block");
  if (!r.accuracy.nonfinite_recorded) out.push_back("no accuracy.nonfinite count");
  return out;
}

// The attention cases of the whole run the set belongs to: expansion, target mapping,
// --filter (every shard of it). Throws std::invalid_argument for a filter that does not compile.
std::vector<Case> attention_run_cases(const ResultSet& rs, const Config& config) {
  std::vector<Case> cases = cases_for_target(config.cases, rs.target);
  if (rs.filter.empty()) return cases;
  std::string error;
  const std::optional<CaseRegex> filter = CaseRegex::compile(rs.filter, &error);
  if (!filter) throw std::invalid_argument(error);
  std::vector<Case> kept;
  for (const Case& c : cases)
    if (filter_keeps(*filter, c)) kept.push_back(c);
  return kept;
}

WorkloadSet workload_set(const ResultSet& rs) {
  WorkloadSet set;
  set.kind = WorkloadKind::attention;
  set.target = rs.target;
  set.filter = rs.filter;
  set.shard_index = rs.shard_index;
  set.shard_count = rs.shard_count;
  set.interrupted = rs.interrupted;
  for (const CaseResult& r : rs.cases) {
    WorkloadResult w;
    w.sweep = r.c.sweep;
    w.id = r.c.id();
    w.status = r.status;
    w.reason = r.reason;
    w.missing_metrics = missing_required_metrics(r);
    w.selected_by = [&r](const Selector& s) { return s.matches(r.c); };
    w.attention = &r;
    set.results.push_back(std::move(w));
  }
  return set;
}

WorkloadSet workload_set(const ModelResultSet& rs) {
  WorkloadSet set;
  set.kind = WorkloadKind::training_step;
  set.target = rs.target;
  set.interrupted = rs.interrupted;
  for (const ModelCaseRecord& r : rs.cases) {
    WorkloadResult w;
    w.sweep = r.sweep;
    w.id = r.id;
    w.status = r.status;
    w.reason = r.reason;
    w.missing_metrics = missing_step_metrics(r);
    w.selected_by = [&r](const Selector& s) {
      return s.matches_model(r.backend, r.role, r.sweep, r.params);
    };
    set.results.push_back(std::move(w));
  }
  return set;
}

WorkloadExpectation expected_workloads(const ResultSet& rs, const Config& config) {
  WorkloadExpectation out;
  std::vector<Case> cases;
  try {
    cases = attention_run_cases(rs, config);
  } catch (const std::invalid_argument& e) {
    out.unknown = fmt::format(
        "results incomplete: cannot tell which cases the recorded filter \"{}\" kept ({})",
        rs.filter, e.what());
    return out;
  }
  if (rs.shard_count > 0) cases = shard_cases(cases, Shard{rs.shard_index, rs.shard_count});
  for (const Case& c : cases) out.results.emplace_back(c.sweep, c.id());
  return out;
}

WorkloadExpectation expected_workloads(const ModelResultSet& rs, const Config& config) {
  WorkloadExpectation out;
  if (config.model_cases.empty() && !config.cases.empty()) {
    out.unknown = "results of a transformer sweep judged by a config of attention sweeps";
    return out;
  }
  // Transformer sweeps take no --filter or --shard: the set is the whole expansion.
  for (const ModelCase& c : model_cases_for_target(config.model_cases, rs.target))
    out.results.emplace_back(c.sweep, c.id());
  return out;
}

}  // namespace fa2b
