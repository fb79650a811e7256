// SPDX-License-Identifier: Apache-2.0
// `sweep` for transformer configs: each case's training step on the CUDA device (the CUDA step,
// fp16 / bf16) or the host (float32), one line per case, then the config's checks over them;
// results.json in --out (its own "kind", read by `compare` and `check`). Cases run in this
// process.
#include <fmt/format.h>

#include <filesystem>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "checks/model_checks.h"
#include "cli/model_commands.h"
#include "cli/tables.h"
#include "io/atomic_file.h"
#include "io/model_results.h"
#include "io/results_json.h"
#include "model/model_runner.h"
#include "core/gpu_peaks.h"
#include "runtime/device_info.h"

namespace fa2b {

int run_model_sweep(const SweepArgs& a, const Config& config, std::int64_t budget) {
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
    return kExitRuntime;
  }
  if (!cuda && a.target == "auto") {
    fmt::print(stderr, "fa2bench: {}; running on the CPU target (the float32 host step)\n", why);
  }
  const bool unsupported_flag = !a.resume.empty() || !a.shard.empty() || !a.filter.empty() ||
                                !a.dump.empty() || !a.devices.empty() || a.cpu_workers > 0;
  if (unsupported_flag) {
    fmt::print(stderr,
               "fa2bench: {}: --resume, --shard, --filter, --dump, --devices and workers are "
               "not supported for transformer sweeps yet\n",
               config.path);
    return kExitUsage;
  }
  std::error_code ec;
  std::filesystem::create_directories(a.out, ec);
  if (ec) {
    fmt::print(stderr, "fa2bench: cannot create --out {}: {}\n", a.out, ec.message());
    return kExitRuntime;
  }

  nlohmann::json cases = nlohmann::json::array();
  bool errors = false;
  fmt::print("{:<8} {:<52} {:>11} {:>11} {:>9} {:>9} {:>9} {:>10}\n", "status", "case", "peak",
             "predicted", "fwd ms", "bwd ms", "opt ms", "tokens/s");
  for (ModelCase c : config.model_cases) {
    // The CPU target runs a GPU backend's CPU counterpart (fa2 -> cpu-flash), as attention
    // sweeps do; the role keeps the name the config gave.
    if (!cuda && is_device_backend(c.backend) && !cpu_counterpart(c.backend).empty())
      c.backend = cpu_counterpart(c.backend);
    const model::ModelResult r = model::run_model_case(c, budget, cuda ? a.device : -1);
    errors = errors || r.status == "error";
    fmt::print("{:<8} {:<52} {:>11} {:>11} {:>9.2f} {:>9.2f} {:>9.2f} {:>10.0f}\n", r.status,
               c.id(), human_bytes(static_cast<double>(r.peak_bytes)),
               human_bytes(static_cast<double>(r.plan.peak_bytes)), r.forward_ms, r.backward_ms,
               r.optimizer_ms, r.tokens_per_s);
    if (!r.reason.empty()) fmt::print("         {}\n", r.reason);
    cases.push_back(model::to_json(r));
  }
  nlohmann::json results = {
      {"kind", "fa2bench-model-results"},
      {"schema_version", 1},
      {"config", config.path},
      {"config_name", config.name},
      {"config_sha256", config.sha256},
      {"target", cuda ? "cuda" : "cpu"},
      // The peaks and the memory the cases must fit (capacity_bytes: --memory-budget, else
      // the device's memory), which `where: fits/exceeds` checks judge by.
      {"device", with_capacity(with_device_peaks(cuda ? to_json(gpus[static_cast<std::size_t>(
                                                            a.device)])
                                                      : cpu_device_block()),
                               budget)},
      {"conventions", model::model_conventions_json()},
      {"cases", cases},
      // What `check` re-evaluates by (verified against config_sha256, as for attention).
      {"config_echo", config.raw}};
  // The checks judge what the file says, through the reader `check` uses, so a sweep and a
  // later `check` of its file cannot disagree.
  std::vector<Verdict> verdicts;
  if (!config.checks.empty()) {
    try {
      const ModelResultSet own = model_result_set_from_json(results, "results");
      verdicts = evaluate_model_checks(config.checks, own.cases, own.device);
    } catch (const ResultsFileError& e) {
      fmt::print(stderr, "fa2bench: the sweep's own results are unusable: {}\n", e.what());
      return kExitRuntime;
    }
    nlohmann::json checks = nlohmann::json::array();
    for (const Verdict& v : verdicts) checks.push_back(to_json(v));
    results["checks"] = checks;
  }
  const std::string path = (std::filesystem::path(a.out) / "results.json").string();
  write_text_file_atomic(path, results.dump(1) + "\n");
  if (!verdicts.empty()) print_verdict_table(verdicts);
  fmt::print("wrote {}\n", path);
  if (errors && !config.allow_case_errors) return kExitCheckFailed;
  return verdict_exit_code(verdicts);
}

}  // namespace fa2b
