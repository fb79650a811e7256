// `fa2bench run-case` (hidden): runs one case in this process and writes its result as JSON.
// The sweep starts one per case when it isolates cases (--isolate, --devices).
#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "cli/commands.h"
#include "io/atomic_file.h"
#include "io/json_input.h"
#include "io/results_json.h"
#include "runner/case_runner.h"
#include "runner/executor.h"
#include "runner/platform.h"

namespace fa2b {
namespace {

struct RunCaseArgs {
  std::string case_json, result_json, target = "cpu", dump_dir;
  int device = 0;
  std::int64_t memory_budget = 0;
  std::int64_t dump_max_bytes = kDefaultDumpMaxBytes;
};

CaseResult run_one(const RunCaseArgs& a, const Case& c) {
  std::unique_ptr<Backend> backend = make_backend(c.backend);
  if (!backend) {
    return result_without_run(c, a.target, Status::unsupported,
                              fmt::format("backend {} is not built into this fa2bench", c.backend));
  }
  std::unique_ptr<Platform> platform;
  if (a.target == "cuda" && backend->on_device()) {
    std::string why;
    platform = make_cuda_platform(a.device, a.memory_budget, &why);
    if (!platform) return result_without_run(c, a.target, Status::error, why);
  } else {
    platform = make_host_platform();
    platform->tracker().set_budget(a.memory_budget);
  }
  const DumpRequest dump{a.dump_dir, a.dump_max_bytes};
  CaseResult r = run_case(c, *backend, *platform, a.dump_dir.empty() ? nullptr : &dump);
  r.target = a.target;
  return r;
}

int run_case_command(const RunCaseArgs& a) {
  Case c;
  try {
    std::ifstream in(a.case_json);
    if (!in) throw std::runtime_error(a.case_json + ": cannot open");
    std::stringstream ss;
    ss << in.rdbuf();
    c = case_result_from_json(parse_json_input(ss.str(), a.case_json)).c;
  } catch (const std::exception& e) {
    fmt::print(stderr, "fa2bench run-case: {}\n", e.what());
    return kExitUsage;
  }
  CaseResult r;
  try {
    r = run_one(a, c);
  } catch (const std::exception& e) {
    r = result_without_run(c, a.target, Status::error, e.what());
  }
  try {
    write_text_file_atomic(a.result_json, to_json(r).dump() + "\n");
  } catch (const std::exception& e) {
    fmt::print(stderr, "fa2bench run-case: {}\n", e.what());
    return kExitRuntime;
  }
  return kExitOk;
}

}  // namespace

void add_run_case_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<RunCaseArgs>();
  CLI::App* cmd = app.add_subcommand(
      "run-case", "Internal: run one case in this process (the sweep's isolated child)");
  cmd->group("");  // hidden from --help
  cmd->add_option("--case-json", args->case_json, "The case (a results.jsonl line)")->required();
  cmd->add_option("--result-json", args->result_json, "Where the result goes")->required();
  cmd->add_option("--target", args->target)->check(CLI::IsMember({"cuda", "cpu"}));
  cmd->add_option("--device", args->device);
  cmd->add_option("--memory-budget", args->memory_budget, "Bytes; 0: none");
  cmd->add_option("--dump-dir", args->dump_dir);
  cmd->add_option("--dump-max-bytes", args->dump_max_bytes);
  cmd->callback([args, &exit_code] { exit_code = run_case_command(*args); });
}

}  // namespace fa2b
