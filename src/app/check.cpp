// SPDX-License-Identifier: Apache-2.0
#include "app/check.h"

#include <fmt/format.h>

#include <optional>
#include <utility>

#include "app/load_config_or_report.h"
#include "checks/checks.h"
#include "checks/config_echo.h"
#include "checks/model_checks.h"
#include "config/config.h"
#include "io/model_results.h"
#include "io/results_json.h"
#include "report/report.h"

namespace fa2b::app {
namespace {

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
  if (differences.empty()) {
    if (!recorded) return given;
    // The run may have had a subset of the config's backends (sweep --backends): judge the
    // cases of that selection, so the ones it did not ask for are not counted missing.
    const nlohmann::json selected = with_run_backend_selection(recorded->raw, given->raw);
    if (selected == given->raw) return given;
    try {
      return parse_config(selected, given->path);
    } catch (const ConfigError& err) {
      fmt::print(stderr, "fa2bench: {} with the run's backends ({}):\n", a.config, a.results);
      for (const std::string& m : err.messages()) fmt::print(stderr, "  {}\n", m);
      return std::nullopt;
    }
  }
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
CheckOutcome run_model_check(const CheckArgs& a) {
  CheckOutcome out;
  out.transformer = true;
  if (!a.summary_md.empty()) {
    fmt::print(stderr,
               "fa2bench: {}: --summary-md is not supported for transformer results yet "
               "(--junit is)\n",
               a.results);
    return out;
  }
  std::optional<ModelResultSet> loaded = load_or_report(load_model_results, a.results);
  if (!loaded) return out;
  const ModelResultSet& rs = *loaded;
  const std::optional<Config> config = config_to_judge_by(
      a, recorded_echo(rs, a.results), [](const Config&) { return std::vector<std::string>{}; });
  if (!config) return out;
  if (config->model_cases.empty()) {
    fmt::print(stderr, "fa2bench: {} has no transformer sweeps, {} is transformer results\n",
               config->path, a.results);
    return out;
  }
  std::vector<Verdict> verdicts;
  out.problems = judge_result_set(rs, *config, verdicts);
  if (!a.junit.empty()) {
    // The JUnit writer reads verdicts and the set's state; the steps' failures are in the
    // gate's verdicts.
    ResultSet shell;
    shell.checks = verdicts;
    shell.interrupted = rs.interrupted;
    write_junit(shell, a.junit);
  }
  out.judged = true;
  out.config_path = config->path;
  out.judged_count = rs.cases.size();
  out.verdicts = std::move(verdicts);
  return out;
}

}  // namespace

CheckOutcome run_check(const CheckArgs& a) {
  try {
    if (is_model_results(read_results_document(a.results))) return run_model_check(a);
  } catch (const ResultsFileError& e) {
    fmt::print(stderr, "fa2bench: {}\n", e.what());
    return CheckOutcome{};
  }
  CheckOutcome out;
  std::optional<ResultSet> loaded = load_or_report(load_results, a.results);
  if (!loaded) return out;
  ResultSet& rs = *loaded;
  const std::optional<Config> config = config_to_judge_by(
      a, recorded_echo(rs, a.results), [&](const Config& c) { return measure_differences(rs, c); });
  if (!config) return out;
  out.problems = judge_result_set(rs, *config);
  if (!a.junit.empty()) write_junit(rs, a.junit);
  if (!a.summary_md.empty()) write_summary_md(rs, a.summary_md);
  out.judged = true;
  out.config_path = config->path;
  out.judged_count = rs.cases.size();
  out.verdicts = rs.checks;
  return out;
}

}  // namespace fa2b::app
