// SPDX-License-Identifier: Apache-2.0
// The one rule every gate (check, sweep, merge, compare) applies before a result set may pass:
// a set that is incomplete (interrupted, or cases of its config's expansion missing), holds
// cases its config does not produce, has cases in `error`/`timeout`, or has an `ok` case
// without a usable required metric (a finite median time > 0, a memory block, a nonfinite
// count) can never give exit 0. This file finds those problems; each gate turns them into
// its own verdicts. It judges every workload kind (attention cases, transformer training
// steps) through one view (checks/workload.h).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "checks/workload.h"
#include "config/config.h"
#include "core/result.h"
#include "io/model_results.h"

namespace fa2b {

enum class GateProblemKind {
  incomplete,   // interrupted, or cases of the config's expansion are missing
  unexpected,   // a case the config's expansion (target, --filter, --shard) does not hold
  case_failed,  // a case ended in error or timeout
  bad_metric,   // an ok case without a required metric
};

struct GateProblem {
  GateProblemKind kind = GateProblemKind::incomplete;
  std::string key;  // workload_key of the result at fault; empty for the set as a whole
  // Whether a check's selector selects the result at fault; empty for the set as a whole.
  std::function<bool(const Selector&)> selected_by;
  const CaseResult* result = nullptr;  // the attention case at fault, when it is one
  std::string reason;  // one line, e.g. "results incomplete: 5 of 12 cases (interrupted)"
};

struct GateOptions {
  bool allow_case_errors = false;    // the config's "allow_case_errors"
  bool allow_missing_cases = false;  // merge --allow-partial, compare --allow-missing
};

// The problems of `rs`, set-level first, then per case in results order. `config` is the
// config the set was run from (its echo, or `check --config`); without one only
// `interrupted` can tell an incomplete set. The expected cases are the config's expansion for
// the set's target, narrowed by the set's recorded --filter and --shard, as `sweep` did.
// An interrupted set is incomplete even with allow_missing_cases. A case outside the expected
// ones (e.g. appended to the file by hand) is a problem whatever the options: the checks
// would otherwise judge cases the config never asked for.
std::vector<GateProblem> audit_result_set(const ResultSet& rs, const Config* config,
                                          const GateOptions& options);
// The same rule for transformer results (their config's transformer sweeps).
std::vector<GateProblem> audit_result_set(const ModelResultSet& rs, const Config* config,
                                          const GateOptions& options);
// The rule itself, on any workload set; `expected` null without a config.
std::vector<GateProblem> audit_workloads(const WorkloadSet& set,
                                         const WorkloadExpectation* expected,
                                         const GateOptions& options);

// Turns problems into verdicts: each check whose selection holds a case at fault, and every
// check for a set-level problem, gets verdict `error` naming the reason. Problems that no
// check names (a crashed case no check selects, a config without checks) get one more
// verdict, "results_usable" (kind "gate"), so that a set with a problem never passes.
// `verdicts` holds one verdict per spec, in spec order (as evaluate_checks returns them).
void apply_gate(const std::vector<GateProblem>& problems, const std::vector<CheckSpec>& specs,
                std::vector<Verdict>& verdicts);

// Checks whose selection matches no case of `rs` although the config's expansion for its
// target holds some, all removed by the recorded --filter: their verdict (an error, "no case
// matches the selection ...") says the filter removed them, so a filtered run's failure reads
// as what it is. `verdicts` as for apply_gate, before it.
// `sweep --shard I/N`: a check whose selection holds cases of other shards cannot be judged on
// this shard's cases; its verdict becomes `deferred` (shown, counted, never a failure), and
// `merge` judges it on all of them. Call after evaluate_checks and before apply_gate, so a
// crashed or missing case of this shard still makes the check `error`.
void defer_cross_shard_checks(const ResultSet& rs, const Config& config,
                              std::vector<Verdict>& verdicts);

void explain_filtered_selections(const ResultSet& rs, const Config& config,
                                 std::vector<Verdict>& verdicts);

// What a gate holding the set's config (sweep, check) does with it: rs.checks becomes the
// config's checks evaluated on its cases, deferred across shards and explained where a filter
// emptied them (above), then with the gate's problems applied. Returns the problems, for the
// caller to print.
std::vector<GateProblem> judge_result_set(ResultSet& rs, const Config& config);
// The same for transformer results: `verdicts` becomes the config's checks evaluated on the
// steps, with the gate's problems applied.
std::vector<GateProblem> judge_result_set(const ModelResultSet& rs, const Config& config,
                                          std::vector<Verdict>& verdicts);

}  // namespace fa2b
