// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include <map>

#include "app/load_config_or_report.h"
#include "cli/commands.h"

namespace fa2b {
namespace {

struct ValidateArgs {
  std::string config;
  std::vector<std::string> set;
};

int run_validate(const ValidateArgs& a) {
  const auto config = load_config_or_report(a.config, ConfigOverrides{a.set, {}});
  if (!config) return kExitUsage;
  std::map<std::string, int> per_sweep;
  for (const Case& c : config->cases) ++per_sweep[c.sweep];
  for (const ModelCase& m : config->model_cases) ++per_sweep[m.sweep];
  fmt::print("{}: valid; {} case(s), {} check(s)\n", config->path,
             config->cases.size() + config->model_cases.size(), config->checks.size());
  for (const auto& [name, n] : per_sweep) fmt::print("  sweep {}: {} case(s)\n", name, n);
  return kExitOk;
}

}  // namespace

void add_validate_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ValidateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "validate",
      "Check a config without running it: every problem is reported with its JSON pointer.\n"
      "Exit 0 when valid, 2 otherwise.");
  cmd->add_option("--config,-c", args->config, "Sweep config (JSON)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--set", args->set, "Override a config value (as in sweep)");
  cmd->callback([args, &exit_code] { exit_code = run_validate(*args); });
}

}  // namespace fa2b
