// SPDX-License-Identifier: Apache-2.0
// Command-line overrides: --set KEY=VALUE and --backends, applied to the raw config.
#include <algorithm>
#include <cctype>

#include "config/config_internal.h"
#include "core/backend_catalog.h"
#include "io/json_input.h"

namespace fa2b::config_detail {
namespace {

const char* kSetHelp =
    "expected KEY=VALUE with a dotted KEY, e.g. grid.T=[1024,2048], grid.causal=false, "
    "measure.max_samples=5, defaults.D=64";

std::vector<std::string> split_path(const std::string& key) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = key.find('.', start);
    out.push_back(key.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return out;
}

bool is_index(const std::string& s) {
  return !s.empty() && s.size() < 10 &&
         std::all_of(s.begin(), s.end(), [](char ch) { return std::isdigit(ch) != 0; });
}

// Sets `value` at `path` below `node`, creating objects on the way.
void set_path(json& node, const std::vector<std::string>& path, std::size_t first,
              const json& value, const std::string& where, std::vector<std::string>& errors,
              const std::string& label) {
  json* cur = &node;
  std::string walked = where;
  for (std::size_t i = first; i < path.size(); ++i) {
    const std::string& seg = path[i];
    json* next = nullptr;
    if (cur->is_array()) {
      if (!is_index(seg) || std::stoul(seg) >= cur->size()) {
        errors.push_back(label + ": \"" + clip_echo(seg) + "\" is not an index of the list at " +
                         (walked.empty() ? "(root)" : walked) + " (it has " +
                         std::to_string(cur->size()) + " entries)");
        return;
      }
      next = &(*cur)[std::stoul(seg)];
    } else if (cur->is_object() || cur->is_null()) {
      next = &(*cur)[seg];
    } else {
      errors.push_back(label + ": cannot set a key inside " + (walked.empty() ? "(root)" : walked) +
                       ", which is " + show(*cur) + ", not an object");
      return;
    }
    walked = ptr(walked, seg);
    cur = next;
  }
  *cur = value;
}

}  // namespace

json apply_overrides(const json& raw, const ConfigOverrides& overrides) {
  json out = raw;
  std::vector<std::string> errors;
  for (const auto& entry : overrides.set) {
    // A value can be megabytes long; messages repeat only its start.
    const std::string label = "--set \"" + clip_echo(entry) + "\"";
    const std::size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) {
      errors.push_back(label + ": " + kSetHelp);
      continue;
    }
    const std::string key = entry.substr(0, eq);
    const std::string text = entry.substr(eq + 1);
    const auto path = split_path(key);
    if (std::any_of(path.begin(), path.end(), [](const std::string& s) { return s.empty(); })) {
      errors.push_back(label + ": empty part in key \"" + clip_echo(key) + "\"; " + kSetHelp);
      continue;
    }
    // VALUE is JSON when it parses as JSON, a plain string otherwise (dtype=bf16).
    // Nesting and numbers beyond range are refused like in a config file.
    json value;
    try {
      // Duplicate keys are refused as in a config file: nlohmann would keep the last silently.
      value = parse_json_input(text, label,
                               {/*allow_comments=*/false,
                                /*reject_duplicate_keys=*/true});
    } catch (const JsonInputError& e) {
      using Kind = JsonInputError::Kind;
      if (e.kind() == Kind::duplicate_key) {
        for (const auto& d : e.duplicates) errors.push_back(label + ": " + d);
        continue;
      }
      if (e.kind() != Kind::syntax && e.kind() != Kind::truncated) {
        errors.push_back(e.what());
        continue;
      }
      value = text;
    }

    if (!out.is_object()) {
      errors.push_back(label + ": the config is not a JSON object");
      continue;
    }
    if (path[0] == "grid") {
      if (path.size() < 2) {
        errors.push_back(label + ": name an axis after \"grid.\", e.g. grid.T=[1024,2048]");
        continue;
      }
      if (!out.contains("sweeps") || !out["sweeps"].is_array()) {
        errors.push_back(label + ": the config has no \"sweeps\" list to apply it to");
        continue;
      }
      for (std::size_t i = 0; i < out["sweeps"].size(); ++i) {
        json& sweep = out["sweeps"][i];
        if (!sweep.is_object()) continue;  // reported by validation
        json& grid = sweep["grid"];
        if (grid.is_null()) grid = json::object();
        if (path.size() == 2 && grid.is_object()) {
          // Keep T and T_q/T_k from clashing: the override wins.
          const std::string& axis = path[1];
          if (axis == "T") {
            grid.erase("T_q");
            grid.erase("T_k");
          } else if ((axis == "T_q" || axis == "T_k") && grid.contains("T")) {
            const json t = grid["T"];
            grid.erase("T");
            grid[axis == "T_q" ? "T_k" : "T_q"] = t;
          }
        }
        set_path(grid, path, 1, value, ptr(ptr("/sweeps", i), "grid"), errors, label);
      }
      continue;
    }
    set_path(out, path, 0, value, "", errors, label);
    // measure.X also wins over a sweep's own measure.X.
    if (path.size() == 2 && path[0] == "measure" && out.contains("sweeps") &&
        out["sweeps"].is_array()) {
      for (auto& sweep : out["sweeps"]) {
        if (sweep.is_object() && sweep.contains("measure") && sweep["measure"].is_object() &&
            sweep["measure"].contains(path[1])) {
          sweep["measure"][path[1]] = value;
        }
      }
    }
  }

  if (!overrides.backends.empty()) {
    const auto& known = known_backend_names();
    std::vector<std::string> seen;
    for (const auto& b : overrides.backends) {
      if (std::find(known.begin(), known.end(), b) == known.end()) {
        std::string msg = "--backends: unknown backend \"" + b + "\"";
        const std::string near = did_you_mean(b, known);
        if (b.find_first_of(" \t") != std::string::npos) {
          // "--backends 'fa2 cudnn'" from a script: one argument holding two names.
          msg += " (one argument with spaces; separate backends with commas: --backends fa2,cudnn)";
        } else if (!near.empty()) {
          msg += " (did you mean \"" + near + "\"?)";
        }
        errors.push_back(msg + "; known backends: " + join(known));
      } else if (std::find(seen.begin(), seen.end(), b) != seen.end()) {
        errors.push_back("--backends: duplicate backend \"" + b + "\"");
      } else {
        seen.push_back(b);
      }
    }
    if (out.is_object() && out.contains("sweeps") && out["sweeps"].is_array()) {
      for (auto& sweep : out["sweeps"]) {
        if (sweep.is_object()) sweep["backends"] = overrides.backends;
      }
    }
  }
  if (!errors.empty()) throw ConfigError(errors);
  return out;
}

}  // namespace fa2b::config_detail
