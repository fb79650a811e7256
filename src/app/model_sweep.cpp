// SPDX-License-Identifier: Apache-2.0
// `sweep` for transformer configs: each case's training step on the CUDA device (the CUDA step,
// fp16 / bf16) or the host (float32), then the config's checks over them; results.json in
// --out (its own "kind", read by `compare` and `check`). Cases run in this process. --out is
// claimed, and the result set judged, as for attention sweeps: the same lock, refusal of an
// earlier sweep's files, signal handling and result gate (checks/result_gate.h).
#include "app/model_sweep.h"

#include <fmt/format.h>

#include <filesystem>
#include <string>
#include <vector>

#include "app/exit_codes.h"
#include "app/signals.h"
#include "backends/backend.h"
#include "backends/env_overrides.h"
#include "checks/model_checks.h"
#include "checks/result_gate.h"
#include "core/gpu_peaks.h"
#include "core/tool_block.h"
#include "io/atomic_file.h"
#include "io/model_results.h"
#include "io/results_json.h"
#include "model/model_runner.h"
#include "report/report.h"
#include "runner/sweep_runner.h"
#include "runtime/device_info.h"

namespace fa2b::app {

std::optional<ModelSweepOutcome> run_model_sweep(const SweepArgs& a, const Config& config,
                                                 std::int64_t budget,
                                                 const ModelStepPrinter& printer, int& exit_code) {
  // The target as attention sweeps pick it: auto is the GPU when there is one.
  std::string why;
  std::vector<GpuInfo> gpus;
  if (a.target != "cpu") gpus = list_gpus(&why);
  if (!gpus.empty() && (a.device < 0 || a.device >= static_cast<int>(gpus.size()))) {
    why =
        fmt::format("--device {} does not exist ({} CUDA device(s) found)", a.device, gpus.size());
    gpus.clear();
  }
  const bool cuda = !gpus.empty();
  if (!cuda && a.target == "cuda") {
    fmt::print(stderr, "fa2bench: --target cuda but {}\n", why);
    exit_code = kExitRuntime;
    return std::nullopt;
  }
  if (!cuda && a.target == "auto") {
    fmt::print(stderr, "fa2bench: {}; running on the CPU target (the float32 host step)\n", why);
  }
  const bool unsupported_flag = !a.resume.empty() || !a.shard.empty() || !a.filter.empty() ||
                                !a.dump.empty() || !a.devices.empty() || a.cpu_workers > 0 ||
                                !a.summary_md.empty();
  if (unsupported_flag) {
    fmt::print(stderr,
               "fa2bench: {}: --resume, --shard, --filter, --dump, --devices, --summary-md and "
               "workers are "
               "not supported for transformer sweeps yet\n",
               config.path);
    exit_code = kExitUsage;
    return std::nullopt;
  }
  int claim_exit = kExitOk;
  auto lock = claim_out_dir(a.out, false, a.overwrite, {a.junit, a.summary_md}, claim_exit);
  if (!lock) {
    exit_code = claim_exit;
    return std::nullopt;
  }

  nlohmann::json cases = nlohmann::json::array();
  const std::vector<ModelCase> steps =
      model_cases_for_target(config.model_cases, cuda ? "cuda" : "cpu");
  // SIGINT/SIGTERM: stop between steps and write what ran, marked interrupted.
  // The overrides in force, recorded and said as for attention sweeps (core/tool_block.h).
  const nlohmann::json overrides = active_overrides();
  if (const std::string note = overrides_note({{"overrides", overrides}}); !note.empty()) {
    fmt::print(stderr, "{}\n", note);
  }
  install_interrupt_handlers();
  bool interrupted = false;
  if (printer.header) printer.header();
  for (const ModelCase& c : steps) {
    if (interrupt_requested()) {
      interrupted = true;
      break;
    }
    const model::ModelResult r = model::run_model_case(c, budget, cuda ? a.device : -1);
    if (printer.step) printer.step(c, r);
    cases.push_back(model::to_json(r));
  }
  nlohmann::json results = {
      {"kind", "fa2bench-model-results"},
      {"schema_version", 1},
      {"tool", tool_block(overrides)},
      {"config", config.path},
      {"config_name", config.name},
      {"config_sha256", config.sha256},
      {"target", cuda ? "cuda" : "cpu"},
      // The peaks and the memory the cases must fit (capacity_bytes: --memory-budget, else
      // the device's memory), which `where: fits/exceeds` checks judge by.
      {"device",
       with_capacity(with_device_peaks(cuda ? to_json(gpus[static_cast<std::size_t>(a.device)])
                                            : cpu_device_block()),
                     budget)},
      {"conventions", model::model_conventions_json()},
      {"cases", cases},
      {"interrupted", interrupted},
      // What `check` re-evaluates by (verified against config_sha256, as for attention).
      {"config_echo", config.raw}};
  // The checks and the gate judge what the file says, through the reader `check` uses, so a
  // sweep and a later `check` of its file cannot disagree.
  std::vector<Verdict> verdicts;
  std::vector<GateProblem> problems;
  try {
    problems = judge_result_set(model_result_set_from_json(results, "results"), config, verdicts);
  } catch (const ResultsFileError& e) {
    fmt::print(stderr, "fa2bench: the sweep's own results are unusable: {}\n", e.what());
    remove_interrupt_handlers();
    exit_code = kExitRuntime;
    return std::nullopt;
  }
  nlohmann::json checks = nlohmann::json::array();
  for (const Verdict& v : verdicts) checks.push_back(to_json(v));
  results["checks"] = checks;
  const std::string path = (std::filesystem::path(a.out) / "results.json").string();
  write_text_file_atomic(path, results.dump(1) + "\n");
  if (!a.junit.empty()) {
    ResultSet shell;  // the JUnit writer reads the verdicts and the set's state
    shell.checks = verdicts;
    shell.interrupted = interrupted;
    write_junit(shell, a.junit);
  }
  remove_interrupt_handlers();
  exit_code = interrupted ? kExitInterrupted : verdict_exit_code(verdicts);
  ModelSweepOutcome outcome;
  outcome.results_path = path;
  outcome.verdicts = std::move(verdicts);
  outcome.problems = std::move(problems);
  outcome.interrupted = interrupted;
  outcome.steps_run = cases.size();
  outcome.steps_total = steps.size();
  outcome.out_lock = std::move(lock);
  return outcome;
}

}  // namespace fa2b::app
