// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include <memory>

#include "app/check.h"
#include "app/exit_codes.h"
#include "cli/commands.h"
#include "cli/tables.h"

namespace fa2b {
namespace {

int run_check_command(const app::CheckArgs& a) {
  const app::CheckOutcome out = app::run_check(a);
  if (!out.judged) return kExitUsage;
  print_gate_problems(out.problems);
  fmt::print("checks of {} on {} ({} {})\n", out.config_path, a.results, out.judged_count,
             out.transformer ? "steps" : "cases");
  print_verdict_table(out.verdicts);
  return verdict_exit_code(out.verdicts);
}

}  // namespace

void add_check_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<app::CheckArgs>();
  CLI::App* cmd = app.add_subcommand(
      "check",
      "Re-evaluate checks on a saved results.json, e.g. to gate CI on results produced on a\n"
      "GPU machine. Uses the config echoed in the results unless --config is given, and\n"
      "refuses (exit 2) an echo whose sha256 differs from the one recorded with it, and a\n"
      "--config that asks for other measurements than the run did (seed, inputs, samples,\n"
      "shapes: anything but checks, allow_case_errors, name, description), naming it.\n"
      "A set that is incomplete (interrupted, cases missing from the config's expansion),\n"
      "has cases in error/timeout (unless the config says \"allow_case_errors\": true), or an\n"
      "ok case without a finite median, a memory block or a nonfinite count gives the\n"
      "affected checks verdict error and exits 1.\n"
      "Transformer results (a transformer sweep's results.json) go through the same gate:\n"
      "the checks of their config, then the same rule over their steps.\n\n"
      "Example:  fa2bench check results/h200/seed_notebook/results.json");
  cmd->add_option("results", args->results, "results.json written by fa2bench sweep")->required();
  cmd->add_option("--config,-c", args->config, "Take the checks from this config instead")
      ->check(CLI::ExistingFile);
  cmd->add_option("--junit", args->junit, "Write the verdicts as JUnit XML here");
  cmd->add_option("--summary-md", args->summary_md, "Write a Markdown summary here");
  cmd->callback([args, &exit_code] { exit_code = run_check_command(*args); });
}

}  // namespace fa2b
