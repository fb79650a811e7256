// SPDX-License-Identifier: Apache-2.0
// What every gate sees of a result set, whatever its workload. An attention case
// (core/result.h) and a transformer training step (io/model_results.h) are two kinds of one
// workload result: the result gate (result_gate.h) and through it sweep, check, compare and
// merge judge both through this view, so a rule written once holds for both kinds.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "config/config.h"
#include "core/result.h"
#include "io/model_results.h"

namespace fa2b {

enum class WorkloadKind { attention, training_step };
const char* to_string(WorkloadKind kind);

// One result as the gates judge it.
struct WorkloadResult {
  std::string sweep, id;
  Status status = Status::ok;
  std::string reason;
  // What an ok result lacks of the metrics every gate needs ("time_ms.median is inf").
  std::vector<std::string> missing_metrics;
  // Whether a check's selector selects this result.
  std::function<bool(const Selector&)> selected_by;
  const CaseResult* attention = nullptr;  // the attention case behind it, when it is one
};

struct WorkloadSet {
  WorkloadKind kind = WorkloadKind::attention;
  std::string target, filter;  // filter: the recorded `sweep --filter`
  int shard_index = 0, shard_count = 0;
  bool interrupted = false;
  std::vector<WorkloadResult> results;
};

// The results a set should hold: the config's expansion for the set's target, narrowed by its
// recorded --filter and --shard as `sweep` narrowed it; or why that cannot be told.
struct WorkloadExpectation {
  std::vector<std::pair<std::string, std::string>> results;  // (sweep, id), config order
  std::string unknown;  // e.g. "results incomplete: cannot tell which cases ... kept"
};

// What an ok attention case lacks of the metrics every gate needs ("time_ms.median is inf",
// "no memory block"); empty when nothing (or when the case is not ok).
std::vector<std::string> missing_required_metrics(const CaseResult& r);

// A result's identity within one set: two sweeps of a config may hold the same shape.
std::string workload_key(const std::string& sweep, const std::string& id);

// The attention cases of the whole run a set belongs to: its config's expansion for the set's
// target and recorded --filter, every shard of it. Throws std::invalid_argument for a
// recorded filter that does not compile.
std::vector<Case> attention_run_cases(const ResultSet& rs, const Config& config);

WorkloadSet workload_set(const ResultSet& rs);
WorkloadSet workload_set(const ModelResultSet& rs);
WorkloadExpectation expected_workloads(const ResultSet& rs, const Config& config);
WorkloadExpectation expected_workloads(const ModelResultSet& rs, const Config& config);

}  // namespace fa2b
