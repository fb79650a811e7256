// SPDX-License-Identifier: Apache-2.0
// `fa2bench sweep` as the application runs it, from its options (SweepArgs): --resume read
// back, the cases set up where the flags say, --out claimed, the cases run, the reports written
// into --out and judged. Diagnostics and progress go to stderr as the sweep runs; the tables
// and the closing lines on stdout are the sweep command's to print from the outcome.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/model_sweep.h"
#include "app/sweep_args.h"
#include "checks/result_gate.h"
#include "config/config.h"
#include "core/result.h"

namespace fa2b::app {

// Changes the loaded config (after --set/--backends) before anything runs: its cases, its
// checks. Returns kExitOk to go on, or the exit code to stop with (its reason printed).
using ConfigRewrite = std::function<int(Config&)>;

// An attention sweep that ran (to its end or to an interrupt) and wrote its reports.
struct AttentionSweepOutcome {
  std::string out;    // --out as the sweep resolved it (the default, or --resume's folder)
  ResultSet results;  // as written to --out/results.json
  // --resume: the cases an earlier run had finished (the wall summary leaves them out).
  std::vector<std::optional<CaseResult>> finished_before;
  bool interrupted = false;       // a signal kept cases from running
  std::size_t planned_cases = 0;  // this run's cases (after --filter/--shard), finished included
  int workers_started = -1;       // isolated sweeps: worker processes started; -1 in process
  // The unrecoverable device error that ended it (its reason), if one did.
  std::optional<std::string> device_error;
  std::vector<GateProblem> problems;  // the result gate's, for stderr
  // The --out lock, the device or the workers and the locked clocks: given back when the
  // outcome goes, after the command has printed it (the clock lock's failure to give the
  // clocks back is then reported last, as when the command ran the sweep itself).
  std::shared_ptr<void> held;
};

struct SweepOutcome {
  int exit_code = 0;  // what the command exits with
  // The sweep that ran and wrote its reports: an attention or a transformer sweep; neither
  // when the sweep stopped before (the reason printed on stderr).
  std::optional<AttentionSweepOutcome> attention;
  std::optional<ModelSweepOutcome> model;
};

// Every option of SweepArgs. `rewrite` (when set) replaces the config's contents first; the
// results then record the rewritten config (its echo and sha256), which `check` and `merge`
// read as any other. `steps` prints a transformer sweep's steps as they run.
// `*reports_written` (when given) says whether this run wrote --out/results.json of an
// attention sweep (set as soon as it is written, so that it holds when a later report fails).
SweepOutcome run_sweep(SweepArgs a, const ConfigRewrite& rewrite, const ModelStepPrinter& steps,
                       bool* reports_written = nullptr);

}  // namespace fa2b::app
