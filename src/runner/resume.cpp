// SPDX-License-Identifier: Apache-2.0
#include "runner/resume.h"

#include <fmt/format.h>

#include <filesystem>
#include <map>

#include "io/atomic_file.h"
#include "io/input_file.h"
#include "io/json_input.h"
#include "io/results_json.h"

namespace fa2b {

using nlohmann::json;

namespace {

std::string key_of(const Case& c) {
  return c.sweep + "\n" + c.id();
}

template <class T>
T get_or(const json& j, const char* key, T fallback) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  return it->get<T>();
}

}  // namespace

json to_json(const SweepManifest& m) {
  json j = json::object();
  j["schema"] = kManifestSchema;
  j["config"] = {{"path", m.config_path}, {"file", m.config_file}, {"sha256", m.config_sha256}};
  j["args"] = {{"set", m.set},
               {"backends", m.backends},
               {"inputs", m.inputs},
               {"filter", m.filter},
               {"target", m.requested_target}};
  j["target"] = m.target;
  j["shard"] = m.shard ? json{{"index", m.shard->index}, {"count", m.shard->count}} : json(nullptr);
  j["cases"] = m.case_ids;
  j["run"] = {{"memory_budget", m.memory_budget},
              {"case_timeout_s", m.case_timeout_s},
              {"isolated", m.isolated ? json(*m.isolated) : json(nullptr)},
              {"dump", m.dump_dir},
              {"dump_filter", m.dump_filter}};
  if (m.profile_once) j["run"]["profile_once"] = true;  // absent: a measured sweep
  if (m.overrides) j["run"]["overrides"] = *m.overrides;
  return j;
}

SweepManifest read_manifest(const std::string& path) {
  std::string text;
  try {
    text = read_input_file(path);
  } catch (const InputFileError& e) {
    throw ResultsFileError(std::string(e.what()) + " (not the --out directory of a sweep?)");
  }
  SweepManifest m;
  try {
    const json j = parse_json_input(text, path);
    if (get_or<std::string>(j, "schema", "") != kManifestSchema)
      throw ResultsFileError(path + ": not a sweep manifest (schema \"" + kManifestSchema + "\")");
    const json& c = j.at("config");
    m.config_path = get_or<std::string>(c, "path", "");
    m.config_file = get_or<std::string>(c, "file", "");
    m.config_sha256 = c.at("sha256").get<std::string>();
    const json args = j.value("args", json::object());
    m.set = get_or<std::vector<std::string>>(args, "set", {});
    m.backends = get_or<std::vector<std::string>>(args, "backends", {});
    m.inputs = get_or<std::string>(args, "inputs", "");
    m.filter = get_or<std::string>(args, "filter", "");
    m.requested_target = get_or<std::string>(args, "target", "auto");
    m.target = get_or<std::string>(j, "target", "");
    if (j.contains("shard") && j["shard"].is_object())
      m.shard = Shard{j["shard"].at("index").get<int>(), j["shard"].at("count").get<int>()};
    m.case_ids = get_or<std::vector<std::string>>(j, "cases", {});
    const json run = j.value("run", json::object());
    m.memory_budget = get_or<std::string>(run, "memory_budget", "");
    m.case_timeout_s = get_or<double>(run, "case_timeout_s", 0.0);
    if (run.contains("isolated") && !run["isolated"].is_null())
      m.isolated = run["isolated"].get<bool>();
    m.dump_dir = get_or<std::string>(run, "dump", "");
    m.dump_filter = get_or<std::string>(run, "dump_filter", "");
    m.profile_once = get_or<bool>(run, "profile_once", false);
    if (run.contains("overrides")) {
      if (!run["overrides"].is_object())
        throw ResultsFileError(path + ": run.overrides: expected an object");
      m.overrides = run["overrides"];
    }
  } catch (const JsonInputError& e) {
    throw ResultsFileError(e.what());
  } catch (const json::exception& e) {
    throw ResultsFileError(path + ": unusable sweep manifest: " + e.what());
  }
  return m;
}

void write_manifest(const SweepManifest& m, const std::string& path) {
  write_text_file_atomic(path, to_json(m).dump(2) + "\n");
}

JsonlContents read_results_jsonl(const std::string& path) {
  JsonlContents out;
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::symlink_status(path, ec))) return out;
  std::string text;
  try {
    // NULs stay: a machine that lost power may leave a NUL-filled tail, which the line reader
    // below treats as the incomplete last line it is.
    text = read_input_file(path, {kMaxResultsBytes, /*refuse_nul=*/false});
  } catch (const InputFileError& e) {
    throw ResultsFileError(e.what());
  }
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].find_first_not_of(" \t\r") == std::string::npos) continue;
    const bool last = i + 1 == lines.size();
    try {
      out.results.push_back(case_result_from_json(parse_json_input(lines[i], path)));
      out.lines.push_back(lines[i]);
    } catch (const JsonInputError& e) {
      // Nesting beyond the limit or a number out of range is a malformed file, not a line cut
      // short by a kill: never ignored.
      using Kind = JsonInputError::Kind;
      if (!last || (e.kind() != Kind::syntax && e.kind() != Kind::truncated)) {
        throw ResultsFileError(
            fmt::format("{}: line {}, column {}{}: not a case result: {}", path, i + 1, e.column(),
                        e.pointer().empty() ? "" : " (at " + e.pointer() + ")", e.detail()));
      }
      out.warnings.push_back(fmt::format(
          "{}: line {} is incomplete (the sweep was killed while writing it); ignoring it, the "
          "case runs again",
          path, i + 1));
    } catch (const std::exception& e) {
      if (!last) {
        throw ResultsFileError(
            fmt::format("{}: line {}: not a case result ({})", path, i + 1, e.what()));
      }
      out.warnings.push_back(fmt::format(
          "{}: line {} is incomplete (the sweep was killed while writing it); ignoring it, the "
          "case runs again",
          path, i + 1));
    }
  }
  return out;
}

std::vector<std::optional<CaseResult>> match_finished(const std::vector<Case>& cases,
                                                      const std::vector<CaseResult>& earlier,
                                                      std::size_t* unmatched) {
  std::multimap<std::string, std::size_t> by_key;
  for (std::size_t i = 0; i < earlier.size(); ++i) by_key.emplace(key_of(earlier[i].c), i);
  std::vector<std::optional<CaseResult>> out(cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string key = key_of(cases[i]);
    auto it = by_key.lower_bound(key);  // the earliest of equal keys: file order
    if (it == by_key.end() || it->first != key) continue;
    out[i] = earlier[it->second];
    by_key.erase(it);
  }
  if (unmatched) *unmatched = by_key.size();
  return out;
}

}  // namespace fa2b
