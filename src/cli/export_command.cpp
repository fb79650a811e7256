// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "cli/commands.h"
#include "io/atomic_file.h"
#include "io/results_json.h"
#include "report/export_formats.h"

namespace fa2b {
namespace {

struct ExportArgs {
  std::string results;
  std::string format;
  std::string out;  // empty: stdout
};

int run_export(const ExportArgs& a) {
  ResultSet rs;
  try {
    rs = load_results(a.results);
  } catch (const std::exception& e) {
    fmt::print(stderr, "fa2bench: {}\n", e.what());
    return kExitUsage;
  }
  const std::string text = a.format == "gbench" ? gbench_json_text(rs) : nvbench_md_text(rs);
  try {
    if (a.out.empty()) {
      write_stdout(text);
    } else {
      write_output_file(a.out, text);
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "fa2bench: {}\n", e.what());
    return kExitRuntime;
  }
  return kExitOk;
}

}  // namespace

void add_export_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ExportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "export",
      "Write a results file in a format other tools read.\n"
      "  gbench      google/benchmark JSON (compare.py, github-action-benchmark, dashboards):\n"
      "              one benchmark per case named fa2bench/<case id>, real_time = median ms,\n"
      "              counters tflops, gbps, peak_bytes, max_abs_err; cases not ok carry\n"
      "              error_occurred and the reason\n"
      "  nvbench-md  a markdown table in nvbench's layout (one section per sweep)\n"
      "Example: fa2bench export out/results.json --format gbench -o bench.json");
  cmd->add_option("results", args->results, "results.json written by sweep or merge")->required();
  cmd->add_option("--format", args->format, "gbench or nvbench-md")
      ->required()
      ->check(CLI::IsMember({"gbench", "nvbench-md"}));
  cmd->add_option("-o,--out", args->out, "File to write (default: standard output)");
  cmd->callback([args, &exit_code] { exit_code = run_export(*args); });
}

}  // namespace fa2b
