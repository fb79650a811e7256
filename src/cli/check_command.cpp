// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "app/load_config_or_report.h"
#include "checks/checks.h"
#include "checks/config_echo.h"
#include "checks/model_checks.h"
#include "checks/result_gate.h"
#include "cli/commands.h"
#include "cli/tables.h"
#include "io/model_results.h"
#include "io/results_json.h"
#include "report/report.h"

namespace fa2b {
namespace {

struct CheckArgs {
  std::string results;
  std::string config;
  std::string junit;
  std::string summary_md;
};

// `load(path)` of a results file, or nullopt after printing why it cannot be read.
template <typename Load>
auto load_or_report(Load load, const std::string& path) -> std::optional<decltype(load(path))> {
  try {
    return load(path);
  } catch (const ResultsFileError& e) {
    fmt::print(stderr, "fa2bench: {}\n", e.what());
    return std::nullopt;
  }
}

// The config to judge by: the echo in the results file once verified against its recorded
// sha256; or --config, refused when it asks for other measurements than the run did (a stale
// result must not pass against a changed config: compare its seed, inputs, samples, shapes).
// `measure_mismatch(config)` lists per-case differences, for a file without a usable echo.
// nullopt after printing why there is none.
template <typename MeasureMismatch>
std::optional<Config> config_to_judge_by(const CheckArgs& a, const RecordedEcho& echo,
                                         MeasureMismatch measure_mismatch) {
  std::string why;
  std::optional<Config> recorded = config_from_echo(echo, &why);
  if (a.config.empty()) {
    if (!recorded) fmt::print(stderr, "fa2bench: {}\n", why);
    return recorded;
  }
  std::optional<Config> given = load_config_or_report(a.config, {});
  if (!given) return std::nullopt;
  const std::vector<std::string> differences =
      recorded ? config_differences(recorded->raw, given->raw) : measure_mismatch(*given);
  if (differences.empty()) return given;
  fmt::print(stderr,
             "fa2bench: {}: was run with other settings than --config {} asks for ({}); its "
             "results would be judged as if measured the way the config says. Only \"checks\" "
             "may differ. What differs:\n",
             a.results, a.config,
             recorded ? "its verified config echo differs" : "its cases' measure blocks differ");
  constexpr std::size_t kShown = 8;
  for (std::size_t i = 0; i < differences.size() && i < kShown; ++i)
    fmt::print(stderr, "  {}\n", differences[i]);
  if (differences.size() > kShown)
    fmt::print(stderr, "  ... and {} more\n", differences.size() - kShown);
  return std::nullopt;
}

// A transformer results file: the same verdict path as attention results (the checks of its
// config, then the result gate over its steps).
int run_model_check(const CheckArgs& a) {
  if (!a.summary_md.empty()) {
    fmt::print(stderr,
               "fa2bench: {}: --summary-md is not supported for transformer results yet "
               "(--junit is)\n",
               a.results);
    return kExitUsage;
  }
  std::optional<ModelResultSet> loaded = load_or_report(load_model_results, a.results);
  if (!loaded) return kExitUsage;
  const ModelResultSet& rs = *loaded;
  const std::optional<Config> config = config_to_judge_by(
      a, recorded_echo(rs, a.results), [](const Config&) { return std::vector<std::string>{}; });
  if (!config) return kExitUsage;
  if (config->model_cases.empty()) {
    fmt::print(stderr, "fa2bench: {} has no transformer sweeps, {} is transformer results\n",
               config->path, a.results);
    return kExitUsage;
  }
  std::vector<Verdict> verdicts;
  const std::vector<GateProblem> problems = judge_result_set(rs, *config, verdicts);
  print_gate_problems(problems);
  if (!a.junit.empty()) {
    // The JUnit writer reads verdicts and the set's state; the steps' failures are in the
    // gate's verdicts.
    ResultSet shell;
    shell.checks = verdicts;
    shell.interrupted = rs.interrupted;
    write_junit(shell, a.junit);
  }
  fmt::print("checks of {} on {} ({} steps)\n", config->path, a.results, rs.cases.size());
  print_verdict_table(verdicts);
  return verdict_exit_code(verdicts);
}

int run_check(const CheckArgs& a) {
  try {
    if (is_model_results(read_results_document(a.results))) return run_model_check(a);
  } catch (const ResultsFileError& e) {
    fmt::print(stderr, "fa2bench: {}\n", e.what());
    return kExitUsage;
  }
  std::optional<ResultSet> loaded = load_or_report(load_results, a.results);
  if (!loaded) return kExitUsage;
  ResultSet& rs = *loaded;
  const std::optional<Config> config = config_to_judge_by(
      a, recorded_echo(rs, a.results), [&](const Config& c) { return measure_differences(rs, c); });
  if (!config) return kExitUsage;
  const std::vector<GateProblem> problems = judge_result_set(rs, *config);
  print_gate_problems(problems);
  if (!a.junit.empty()) write_junit(rs, a.junit);
  if (!a.summary_md.empty()) write_summary_md(rs, a.summary_md);
  fmt::print("checks of {} on {} ({} cases)\n", config->path, a.results, rs.cases.size());
  print_verdict_table(rs.checks);
  return verdict_exit_code(rs.checks);
}

}  // namespace

void add_check_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<CheckArgs>();
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
  cmd->callback([args, &exit_code] { exit_code = run_check(*args); });
}

}  // namespace fa2b
