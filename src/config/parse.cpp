// SPDX-License-Identifier: Apache-2.0
// parse_config: overrides, then top-level keys, sweeps and checks; all problems in one error.
#include <algorithm>

#include "config/config_internal.h"

namespace fa2b {

using config_detail::json;

Config parse_config(const json& raw_in, const std::string& path, const ConfigOverrides& overrides) {
  using namespace config_detail;
  Config cfg;
  cfg.path = path;
  cfg.raw = apply_overrides(raw_in, overrides);
  const json& raw = cfg.raw;

  Errors errors;
  if (!raw.is_object()) {
    errors.add("",
               "expected a JSON object with \"sweeps\" (and optionally name, description, "
               "measure, defaults, checks), got " +
                   show(raw));
    errors.throw_if_any();
  }
  check_keys(
      raw, "",
      {"name", "description", "allow_case_errors", "measure", "defaults", "sweeps", "checks"},
      "key", errors);
  if (raw.contains("name")) {
    if (auto n = get_string(raw["name"], "/name", errors)) cfg.name = *n;
  } else {
    // The file name without folders and extension.
    std::string stem = path.substr(path.find_last_of('/') + 1);
    stem = stem.substr(0, stem.find_last_of('.'));
    cfg.name = stem.empty() || stem[0] == '<' ? "config" : stem;
  }
  if (raw.contains("description")) {
    if (raw["description"].is_string()) {
      cfg.description = raw["description"].get<std::string>();
    } else {
      errors.add("/description", "expected a string, got " + show(raw["description"]));
    }
  }
  if (raw.contains("allow_case_errors")) {
    if (raw["allow_case_errors"].is_boolean()) {
      cfg.allow_case_errors = raw["allow_case_errors"].get<bool>();
    } else {
      errors.add("/allow_case_errors",
                 "expected true or false, got " + show(raw["allow_case_errors"]));
    }
  }
  if (raw.contains("measure")) {
    cfg.defaults = parse_measure(raw["measure"], "/measure", MeasureSettings{}, errors);
  }
  cfg.defaults.min_samples = std::min(cfg.defaults.min_samples, cfg.defaults.max_samples);

  expand_sweeps(raw, cfg.defaults, cfg.cases, cfg.model_cases, errors);
  const bool cases_valid = errors.empty();
  // A config holds attention or transformer sweeps (expand_sweeps refuses both): its checks
  // are of the one kind of results it makes.
  bool transformer = !cfg.model_cases.empty();
  if (raw.contains("sweeps") && raw["sweeps"].is_array()) {
    for (const json& sweep : raw["sweeps"])
      transformer = transformer || is_transformer_sweep(sweep);
  }
  const std::vector<ModelCase>* model_cases = transformer ? &cfg.model_cases : nullptr;

  // Overrides may narrow the sweeps so far that some checks no longer apply; those are
  // dropped from `raw` (with a note), so that re-parsing `raw` gives the same checks.
  const bool narrowed = !overrides.set.empty() || !overrides.backends.empty();
  std::vector<std::size_t> dropped;
  cfg.checks = parse_checks(raw, cfg.cases, cases_valid, narrowed && cases_valid, dropped,
                            cfg.notes, errors, model_cases);
  errors.throw_if_any();
  if (!dropped.empty()) {
    json& checks = cfg.raw["checks"];
    for (auto it = dropped.rbegin(); it != dropped.rend(); ++it) {
      checks.erase(static_cast<json::size_type>(*it));
    }
    std::vector<std::size_t> none;
    std::vector<std::string> no_notes;
    Errors again;
    cfg.checks = parse_checks(cfg.raw, cfg.cases, true, false, none, no_notes, again, model_cases);
    again.throw_if_any();
  }
  cfg.sha256 = sha256_hex(cfg.raw.dump());
  return cfg;
}

}  // namespace fa2b
