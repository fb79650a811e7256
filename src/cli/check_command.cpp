// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>

#include "checks/checks.h"
#include "checks/model_checks.h"
#include "checks/result_gate.h"
#include "cli/commands.h"
#include "cli/load_config_or_report.h"
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

// The echo is what `check` judges by: a loosened threshold edited into it must not pass. The
// sweep recorded sha256 of the echo's canonical text (Config::sha256), so an edit shows.
bool echo_matches_sha256(const ResultSet& rs, const std::string& file) {
  if (rs.config_sha256.empty()) {
    fmt::print(stderr,
               "fa2bench: {}: /config/sha256 is missing, so its config echo cannot be verified; "
               "pass the config with --config\n",
               file);
    return false;
  }
  const std::string actual = sha256_hex(rs.config_echo.dump());
  if (actual == rs.config_sha256) return true;
  fmt::print(stderr,
             "fa2bench: {}: /config/echo was edited: its sha256 is {}, the file records {}; "
             "refusing to judge by it. Pass the config with --config\n",
             file, actual.substr(0, 12), rs.config_sha256.substr(0, 12));
  return false;
}

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

// The config to judge by: --config, else the echo in the results file once `echo_ok()` (which
// prints why not) accepts it; nullopt after printing why there is none.
template <typename EchoOk>
std::optional<Config> config_to_judge_by(const CheckArgs& a, const nlohmann::json& echo,
                                         const std::string& config_path, EchoOk echo_ok) {
  if (!a.config.empty()) return load_config_or_report(a.config, {});
  if (!echo_ok()) return std::nullopt;
  try {
    return parse_config(echo, config_path + " (echo in " + a.results + ")");
  } catch (const ConfigError& e) {
    fmt::print(stderr, "fa2bench: {}: the config echoed in it does not parse:\n", a.results);
    for (const std::string& m : e.messages()) fmt::print(stderr, "  {}\n", m);
    return std::nullopt;
  }
}

// A transformer results file: the checks of its config (--config, else the echo the sweep
// wrote, verified against config_sha256 as for attention results) over its cases.
int run_model_check(const CheckArgs& a) {
  if (!a.junit.empty() || !a.summary_md.empty()) {
    fmt::print(stderr,
               "fa2bench: {}: --junit and --summary-md are not supported for transformer "
               "results yet\n",
               a.results);
    return kExitUsage;
  }
  std::optional<ModelResultSet> loaded = load_or_report(load_model_results, a.results);
  if (!loaded) return kExitUsage;
  const ModelResultSet& rs = *loaded;
  const std::optional<Config> config = config_to_judge_by(a, rs.config_echo, rs.config_path, [&] {
    if (rs.config_echo.is_null()) {
      fmt::print(stderr,
                 "fa2bench: {}: has no config_echo (written before transformer sweeps took "
                 "checks, or by another tool); pass the config with --config\n",
                 a.results);
      return false;
    }
    const std::string actual = sha256_hex(rs.config_echo.dump());
    if (actual == rs.config_sha256) return true;
    fmt::print(stderr,
               "fa2bench: {}: /config_echo was edited: its sha256 is {}, the file records {}; "
               "refusing to judge by it. Pass the config with --config\n",
               a.results, actual.substr(0, 12), rs.config_sha256.substr(0, 12));
    return false;
  });
  if (!config) return kExitUsage;
  if (config->model_cases.empty()) {
    fmt::print(stderr, "fa2bench: {} has no transformer sweeps, {} is transformer results\n",
               config->path, a.results);
    return kExitUsage;
  }
  std::vector<Verdict> verdicts = evaluate_model_checks(config->checks, rs.cases, rs.device);
  fmt::print("checks of {} on {} ({} cases)\n", config->path, a.results, rs.cases.size());
  if (rs.interrupted) {
    // As an incomplete attention set: nothing measured is missing silently.
    fmt::print(stderr, "fa2bench: {} is an interrupted run\n", a.results);
    for (Verdict& v : verdicts) {
      if (v.verdict == VerdictKind::pass || v.verdict == VerdictKind::skipped) {
        v.verdict = VerdictKind::error;
        v.detail = "the run was interrupted: its cases may be incomplete";
      }
    }
  }
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
      a, rs.config_echo, rs.config_path, [&] { return echo_matches_sha256(rs, a.results); });
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
      "refuses (exit 2) an echo whose sha256 differs from the one recorded with it.\n"
      "A set that is incomplete (interrupted, cases missing from the config's expansion),\n"
      "has cases in error/timeout (unless the config says \"allow_case_errors\": true), or an\n"
      "ok case without a finite median, a memory block or a nonfinite count gives the\n"
      "affected checks verdict error and exits 1.\n"
      "Transformer results (a transformer sweep's results.json) are judged by the checks of\n"
      "their config the same way (an interrupted file turns passes into errors).\n\n"
      "Example:  fa2bench check results/h200/seed_notebook/results.json");
  cmd->add_option("results", args->results, "results.json written by fa2bench sweep")->required();
  cmd->add_option("--config,-c", args->config, "Take the checks from this config instead")
      ->check(CLI::ExistingFile);
  cmd->add_option("--junit", args->junit, "Write the verdicts as JUnit XML here");
  cmd->add_option("--summary-md", args->summary_md, "Write a Markdown summary here");
  cmd->callback([args, &exit_code] { exit_code = run_check(*args); });
}

}  // namespace fa2b
