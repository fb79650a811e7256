// SPDX-License-Identifier: Apache-2.0
// `sweep` for transformer configs ("scope": "transformer" sweeps): the attention sweep
// (app/sweep.h) hands over to it when a config holds model cases.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/out_dir.h"
#include "app/sweep_args.h"
#include "checks/result_gate.h"
#include "config/config.h"
#include "core/model_case.h"
#include "core/result.h"
#include "model/model_runner.h"

namespace fa2b::app {

// The step table on stdout as the steps run: the command prints it (the application writes
// nothing to stdout). `header` comes once before the first step, `step` after each one.
struct ModelStepPrinter {
  std::function<void()> header;
  std::function<void(const ModelCase&, const model::ModelResult&)> step;
};

// A transformer sweep that ran (to its end or to an interrupt) and wrote its results.json.
struct ModelSweepOutcome {
  std::string results_path;  // <out>/results.json
  std::vector<Verdict> verdicts;
  std::vector<GateProblem> problems;  // the result gate's, for stderr
  bool interrupted = false;
  std::size_t steps_run = 0;
  std::size_t steps_total = 0;
  // --out stays locked until the command has printed the outcome and lets it go.
  std::shared_ptr<OutDirLock> out_lock;
};

// Runs each case's training step (the CUDA step on a device, the host step on the CPU target;
// in this process, --target as for attention sweeps), writes <out>/results.json (and --junit)
// and judges the config's checks over it. `budget`: --memory-budget in bytes (0: none).
// `*exit_code`: what the command exits with; the outcome is empty when the sweep stopped
// before writing results (the reason printed on stderr).
std::optional<ModelSweepOutcome> run_model_sweep(const SweepArgs& args, const Config& config,
                                                 std::int64_t budget,
                                                 const ModelStepPrinter& printer, int& exit_code);

}  // namespace fa2b::app
