// SPDX-License-Identifier: Apache-2.0
// Runs the cases of a config on one target, streaming each result to results.jsonl as it
// finishes, with progress on stderr. Cases run through an executor: in this process, or each
// in a child process (isolation, worker pools over several devices).
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/model_case.h"
#include "core/result.h"
#include "runner/executor.h"
#include "runner/platform.h"
#include "runner/shard.h"

namespace fa2b {

struct SweepOptions {
  std::string jsonl_path;  // empty: no streaming file (appended to, never truncated here)
  bool progress = true;
  std::function<bool()> stop_requested;  // checked between cases (signals)
  // --resume: per case (same size as the case list, or empty) the result of an earlier run of
  // the same sweep; those cases are not run again.
  std::vector<std::optional<CaseResult>> finished;
  std::optional<Shard> shard;  // recorded in the result set
  // The command line that re-runs one case alone (runner/repro_command.h), recorded in each
  // result (results.jsonl lines included) that has none yet; empty: none recorded.
  std::function<std::string(const CaseResult&)> repro;
};

// Where the cases run, as the results' context records it.
struct SweepTarget {
  std::string target;  // "cuda" or "cpu"
  nlohmann::json device_block;
};

// Rewrites each case for the platform's target: on the CPU target GPU backends run as their
// CPU counterparts (the case keeps the configured name as its role).
std::vector<Case> cases_for_target(const std::vector<Case>& cases, const std::string& target);
// The same for transformer steps: on the CPU target the attention backend inside each step
// runs as its CPU counterpart (fa2 -> cpu-flash); the role keeps the configured name.
std::vector<ModelCase> model_cases_for_target(const std::vector<ModelCase>& cases,
                                              const std::string& target);
// Two cases of one sweep with the same id (e.g. fa2, which runs as cpu-flash on the cpu
// target, beside cpu-flash itself): their indices, the first and the second.
std::optional<std::pair<std::size_t, std::size_t>> find_duplicate_case(
    const std::vector<Case>& cases);

// Runs every case not already finished; the result set holds the cases in the given (config)
// order and its context blocks (tool, host, device, config: source_of(config), config.h). When
// stop_requested() ends the sweep early, `interrupted` is set and only the finished cases are in
// the set.
ResultSet run_sweep(const ConfigSource& config, const std::vector<Case>& cases,
                    const SweepTarget& target, CaseExecutor& executor, const SweepOptions& options);

// In this process, on `platform`.
ResultSet run_sweep(const ConfigSource& config, const std::vector<Case>& cases, Platform& platform,
                    const SweepOptions& options);

}  // namespace fa2b
