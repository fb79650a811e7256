// SPDX-License-Identifier: Apache-2.0
// Sweep configs: parse, validate (errors carry a JSON pointer), expand grids into cases.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/case.h"
#include "core/model_case.h"
#include "core/result.h"

namespace fa2b {

// Which cases a check (or filter) applies to: axis -> accepted values. Axes: backend (matches
// a case's role or backend name), sweep, B, H, H_kv, T (T_q == T_k == value), T_q, T_k, D,
// dtype, causal, layout. An empty selector matches every case.
struct Selector {
  std::map<std::string, std::vector<nlohmann::json>> match;
  bool matches(const Case& c) const;
  // A transformer case by its backend, role, sweep and params block (io model_params_json):
  // an axis is looked up in params, H as "heads" and T_q / T_k as "T"; an axis the params
  // lack (causal, layout) matches nothing.
  bool matches_model(const std::string& backend, const std::string& role, const std::string& sweep,
                     const nlohmann::json& params) const;
};

struct CheckSpec {
  std::string name;
  std::string kind;     // threshold | ratio | growth | status | plan | accuracy_rule
  std::string pointer;  // JSON pointer of the check in the config, for messages
  Selector select;
  std::string metric;  // threshold, ratio, growth, plan, accuracy_rule
  std::string op;      // "<", "<=", ">", ">=", "==" (threshold, ratio, growth, plan)
  double value = 0;
  // ratio: metric(numerator case) / metric(denominator case) on otherwise equal shapes.
  std::string numerator, denominator;
  // growth: metric at axis == to over metric at axis == from, other parameters equal.
  std::string axis;
  double from = 0, to = 0;
  // status: every selected case has this status.
  std::string expect;
  // plan: optional second plan metric to divide by (e.g. flash_state / score_matrix).
  std::string divide_by;
  // accuracy_rule: metric(case) <= factor * metric(baseline backend, same shape) + atol.
  std::string baseline;
  double factor = 2.0, atol = 1e-5;
  // Device-relative selection (every kind but plan): "fits" keeps the cases whose predicted
  // bytes fit the memory the results were run with (device.capacity_bytes: --memory-budget, or
  // the device's memory), "exceeds" those beyond it; "" keeps all. A ratio or accuracy_rule
  // keeps a pair when both of its cases pass. An empty result: verdict `skipped`.
  std::string where;
  // ratio, accuracy_rule: "both_ran" judges only the pairs whose two cases ran (neither `oom`
  // nor `unsupported`; a case in error or timeout still makes the verdict `error`) and gives
  // `skipped` when fewer than min_pairs remain; "" (default) needs every pair to have run.
  std::string pairs;
  int min_pairs = 1;
  // Every kind but plan: "cuda" or "cpu", the target whose results the check is about (a GPU
  // speed claim); on results of the other target its verdict is `skipped`. "": any target.
  std::string target;
  // Every kind but plan: the compute capability the check is about ("9.0": a claim about a
  // Hopper-only backend such as fa3); on results of a CUDA device below it the verdict is
  // `skipped`. The CPU target, which runs every backend, is judged. "": any device.
  std::string min_cc;
};

struct Config {
  std::string path;    // where it came from ("<built-in quickstart>" for the default)
  std::string sha256;  // of the canonical JSON text (json::dump()) of `raw`
  nlohmann::json raw;  // the config after --set/--backends overrides
  std::string name, description;
  // "allow_case_errors": true lets cases end in `error` or `timeout` without failing the
  // gates by themselves (checks that need those cases still get verdict `error`).
  bool allow_case_errors = false;
  MeasureSettings defaults;
  std::vector<Case> cases;  // expanded, filtered, in config order
  // Cases of "scope": "transformer" sweeps (a config holds those or attention sweeps, not both).
  std::vector<ModelCase> model_cases;
  std::vector<CheckSpec> checks;
  // Informational lines for the user, e.g. a check dropped because --backends or --set grid.*
  // left no case it applies to (the dropped check is removed from `raw` as well).
  std::vector<std::string> notes;
};

// Thrown for any config problem; every message is "<json pointer>: <what is wrong>".
class ConfigError : public std::runtime_error {
 public:
  explicit ConfigError(std::vector<std::string> messages);
  const std::vector<std::string>& messages() const { return messages_; }

 private:
  std::vector<std::string> messages_;
};

struct ConfigOverrides {
  std::vector<std::string> set;       // "grid.T=[1024,2048]", "measure.max_samples=5"
  std::vector<std::string> backends;  // replaces every sweep's backend list when non-empty
};

// What the results record of the config (the runner's view of it).
ConfigSource source_of(const Config& config);

Config parse_config(const nlohmann::json& raw, const std::string& path,
                    const ConfigOverrides& overrides = {});
// Reads and parses a file; JSON syntax errors become a ConfigError naming line and column.
Config load_config(const std::string& path, const ConfigOverrides& overrides = {});
// The built-in quickstart sweep (used when `sweep` gets no --config).
nlohmann::json quickstart_config_json();

std::string sha256_hex(const std::string& bytes);

}  // namespace fa2b
