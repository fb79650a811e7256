// SPDX-License-Identifier: Apache-2.0
#include "checks/config_echo.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

#include "checks/workload.h"
#include "io/results_json.h"
#include "runner/sweep_runner.h"

namespace fa2b {
namespace {

std::string clip(const std::string& s, std::size_t n = 40) {
  return s.size() <= n ? s : s.substr(0, n) + "...";
}

// The value at a JSON pointer of `j`, as short text ("absent" when there is none).
std::string value_at(const nlohmann::json& j, const std::string& pointer) {
  try {
    const nlohmann::json::json_pointer p(pointer);
    return j.contains(p) ? clip(j.at(p).dump()) : "absent";
  } catch (const nlohmann::json::exception&) {
    return "absent";
  }
}

// What a config says about how results are judged or described, not about what is measured:
// the keys a --config may change.
nlohmann::json without_judging(nlohmann::json j) {
  if (j.is_object())
    for (const char* key : {"checks", "allow_case_errors", "name", "description"}) j.erase(key);
  return j;
}

}  // namespace

RecordedEcho recorded_echo(const ResultSet& rs, const std::string& file) {
  return {rs.config_echo, rs.config_sha256, rs.config_path, file, "/config/echo"};
}

RecordedEcho recorded_echo(const ModelResultSet& rs, const std::string& file) {
  return {rs.config_echo, rs.config_sha256, rs.config_path, file, "/config_echo"};
}

std::optional<Config> config_from_echo(const RecordedEcho& e, std::string* why) {
  if (e.echo.is_null() || (e.echo.is_object() && e.echo.empty())) {
    *why = fmt::format(
        "{}: has no config echo ({}), so the checks and the expected cases are "
        "unknown; pass the config with --config",
        e.file, e.pointer);
    return std::nullopt;
  }
  if (e.sha256.empty()) {
    *why = fmt::format(
        "{}: the config's sha256 is missing, so its config echo ({}) cannot be "
        "verified; pass the config with --config",
        e.file, e.pointer);
    return std::nullopt;
  }
  const std::string actual = sha256_hex(e.echo.dump());
  if (actual != e.sha256) {
    *why = fmt::format(
        "{}: {} was edited: its sha256 is {}, the file records {}; refusing to "
        "judge by it. Pass the config with --config",
        e.file, e.pointer, actual.substr(0, 12), e.sha256.substr(0, 12));
    return std::nullopt;
  }
  try {
    return parse_config(e.echo, e.config_path + " (echo in " + e.file + ")");
  } catch (const ConfigError& err) {
    std::string messages;
    for (const std::string& m : err.messages()) messages += (messages.empty() ? "" : "; ") + m;
    *why = fmt::format("{}: the config echoed in it ({}) does not parse: {}", e.file, e.pointer,
                       messages);
    return std::nullopt;
  }
}

nlohmann::json with_run_backend_selection(const nlohmann::json& run, nlohmann::json judge) {
  if (!run.contains("sweeps") || !judge.contains("sweeps")) return judge;
  const nlohmann::json& ran = run["sweeps"];
  nlohmann::json& asked = judge["sweeps"];
  if (!ran.is_array() || !asked.is_array()) return judge;
  for (std::size_t i = 0; i < ran.size() && i < asked.size(); ++i) {
    const nlohmann::json* a =
        ran[i].is_object() && ran[i].contains("backends") ? &ran[i]["backends"] : nullptr;
    nlohmann::json* b =
        asked[i].is_object() && asked[i].contains("backends") ? &asked[i]["backends"] : nullptr;
    if (!a || !b || !a->is_array() || !b->is_array() || a->empty()) continue;
    bool subset = true;
    for (const nlohmann::json& name : *a)
      subset = subset && std::find(b->begin(), b->end(), name) != b->end();
    if (subset) *b = *a;
  }
  return judge;
}

std::vector<std::string> config_differences(const nlohmann::json& run,
                                            const nlohmann::json& judge) {
  std::vector<std::string> out;
  const nlohmann::json a = without_judging(run),
                       b = without_judging(with_run_backend_selection(run, judge));
  for (const nlohmann::json& op : nlohmann::json::diff(a, b)) {
    const std::string path = op.value("path", std::string());
    out.push_back(fmt::format("{}: {} in the run, {} in --config", path.empty() ? "/" : path,
                              value_at(a, path), value_at(b, path)));
  }
  return out;
}

std::string measure_difference(const MeasureSettings& ran, const MeasureSettings& asked,
                               const std::string& now) {
  MeasureSettings want = asked;
  want.profile_once = ran.profile_once;  // a run option, not a setting of the config
  const nlohmann::json a = measure_json(ran), b = measure_json(want);
  if (a == b) return {};
  std::vector<std::string> fields;
  for (const nlohmann::json& op : nlohmann::json::diff(a, b)) {
    const std::string path = op.value("path", std::string());
    fields.push_back(fmt::format("measure{} {} in the run, {} {}", path, value_at(a, path),
                                 value_at(b, path), now));
  }
  return fmt::format("{}", fmt::join(fields, ", "));
}

std::vector<std::string> measure_differences(const ResultSet& rs, const Config& config,
                                             std::size_t limit) {
  std::map<std::string, const Case*> by_key;
  const std::vector<Case> cases = cases_for_target(config.cases, rs.target);
  for (const Case& c : cases) by_key.emplace(workload_key(c.sweep, c.id()), &c);
  std::vector<std::string> out;
  for (const CaseResult& r : rs.cases) {
    const auto it = by_key.find(workload_key(r.c.sweep, r.c.id()));
    if (it == by_key.end()) continue;  // the gate names a case outside the expansion
    const std::string difference = measure_difference(r.c.measure, it->second->measure);
    if (difference.empty()) continue;
    if (out.size() < limit) {
      out.push_back(fmt::format("case {}: {}", r.c.id(), difference));
    } else {
      out.push_back("...");
      break;
    }
  }
  return out;
}

}  // namespace fa2b
