// SPDX-License-Identifier: Apache-2.0
// The config a results file was run with. Every command that judges a results file (check,
// merge, compare) takes it from the file's echo only after verifying the echo against the
// sha256 the sweep recorded beside it (an echo edited to loosen a threshold must not pass),
// or from a config the user names, only when that config asks for the same measurements.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "core/result.h"
#include "io/model_results.h"

namespace fa2b {

// A results file's config echo and what the file records about it.
struct RecordedEcho {
  nlohmann::json echo;  // null when the file has none
  std::string sha256;   // as recorded; empty when missing
  std::string config_path;
  std::string file;     // the results file, for messages
  std::string pointer;  // where the echo lives: "/config/echo", "/config_echo"
};

RecordedEcho recorded_echo(const ResultSet& rs, const std::string& file);
RecordedEcho recorded_echo(const ModelResultSet& rs, const std::string& file);

// The config parsed from a verified echo, or nullopt with `why` saying what is wrong (no echo,
// no sha256, edited, does not parse), in one line that names the file and the JSON pointer.
std::optional<Config> config_from_echo(const RecordedEcho& e, std::string* why);

// Where `judge` (a config the user gave to judge a results file by) asks for other
// measurements than `run` (the raw config the results were run with): one line per
// difference, e.g. "/measure/seed: 42 in the run, 7 in --config". Only what judges or names
// the results may differ ("checks", "allow_case_errors", "name", "description"), and a sweep
// may have run a subset of the config's backends (`sweep --backends`: the same measurement of
// fewer cases); everything else decides what was measured.
std::vector<std::string> config_differences(const nlohmann::json& run, const nlohmann::json& judge);

// `judge` with each sweep's backends replaced by the run's where the run's are a subset of them:
// `sweep --backends` runs some of a config's backends, each measured as the config says, so a
// run of fewer backends is the same measurement of fewer cases, judged by the config's checks
// over the cases it expands to with that selection. A backend the config lacks stays a
// difference.
nlohmann::json with_run_backend_selection(const nlohmann::json& run, nlohmann::json judge);

// How the measure block a result was taken with differs from the one asked for now, e.g.
// "measure/seed 42 in the run, 7 now"; empty when they agree. `now` names the other side.
std::string measure_difference(const MeasureSettings& ran, const MeasureSettings& asked,
                               const std::string& now = "in --config");

// The same question per case, for a file without a usable echo: each case's recorded measure
// block against the one the config gives the case of the same (sweep, id). One line per case
// that differs (at most `limit`), naming the case and the fields.
std::vector<std::string> measure_differences(const ResultSet& rs, const Config& config,
                                             std::size_t limit = 5);

}  // namespace fa2b
