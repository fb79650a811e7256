// SPDX-License-Identifier: Apache-2.0
// Merging shard results: refuse mixed configs and schema majors, report duplicates, keep the
// device blocks, restore the config's case order and re-evaluate its checks.
#include "compare/merge.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>

#include "checks/check_common.h"
#include "checks/checks.h"
#include "checks/config_echo.h"
#include "checks/result_gate.h"
#include "config/config.h"
#include "core/tool_block.h"
#include "io/json_detail.h"
#include "io/results_json.h"

namespace fa2b {
namespace {

std::string schema_major(const std::string& schema) {
  const auto slash = schema.rfind('/');
  const std::string version = slash == std::string::npos ? schema : schema.substr(slash + 1);
  return version.substr(0, version.find('.'));
}

// A device block without the fields that name one card of a node rather than its kind.
nlohmann::json device_identity(const nlohmann::json& device) {
  nlohmann::json d = device;
  if (d.is_object()) {
    d.erase("index");
    d.erase("pci_bus");
    // Measured per run, not part of what the card is.
    d.erase("copy_bw_gbs");
    d.erase("copy_bw_source");
    d.erase("copy_bw_absent");
  }
  return d;
}

std::string short_sha(const std::string& sha) {
  return sha.empty() ? "none" : sha.substr(0, 12) + "…";
}

// The shards of the inputs' --shard I/N that no input holds, as "I/N"; none when an input
// is unsharded (it holds every case). Inputs sharded into different N are reported in
// `warnings`, and judged by the count of the first.
std::vector<std::string> missing_shards(const std::vector<MergeInput>& inputs,
                                        std::vector<std::string>& warnings) {
  std::set<int> held;
  const int count = inputs.front().results.shard_count;
  for (const MergeInput& in : inputs) {
    const ResultSet& rs = in.results;
    if (rs.shard_count == 0) return {};
    if (rs.shard_count != count) {
      warnings.push_back(fmt::format("warning: {} is shard {}/{}, {} is a shard of {}", in.file,
                                     rs.shard_index, rs.shard_count, inputs.front().file, count));
      continue;
    }
    held.insert(rs.shard_index);
  }
  std::vector<std::string> missing;
  for (int i = 0; i < count; ++i)
    if (held.count(i) == 0) missing.push_back(fmt::format("{}/{}", i, count));
  return missing;
}

std::string order_key(const Case& c) {
  return c.sweep + "\x1f" + (c.role.empty() ? c.backend : c.role) + "\x1f" + c.shape_key();
}

// Applies the gates' rule to the merged set: its verdicts, and the reasons as lines.
void judge_by_gate(ResultSet& m, const Config* config, const GateOptions& options,
                   std::vector<std::string>& reasons) {
  const std::vector<GateProblem> problems = audit_result_set(m, config, options);
  apply_gate(problems, config ? config->checks : std::vector<CheckSpec>{}, m.checks);
  for (const GateProblem& p : problems) reasons.push_back(p.reason);
}

}  // namespace

MergeOutcome merge_results(const std::vector<MergeInput>& inputs, const MergeOptions& options) {
  if (inputs.empty()) throw MergeError("nothing to merge: no results files given");
  const MergeInput& first = inputs.front();
  MergeOutcome out;
  ResultSet& m = out.merged;
  m.schema = first.results.schema;
  m.tool = first.results.tool;
  m.host = first.results.host;
  m.device = first.results.device;
  m.target = first.results.target;
  m.config_path = first.results.config_path;
  m.config_sha256 = first.results.config_sha256;
  m.config_echo = first.results.config_echo;
  m.filter = first.results.filter;
  m.clocks = first.results.clocks;
  m.wall_s = 0;

  std::vector<nlohmann::json> devices;
  std::vector<nlohmann::json> device_ids;
  std::map<std::string, std::string> seen;  // case id -> file it came from
  for (const MergeInput& in : inputs) {
    const ResultSet& rs = in.results;
    if (schema_major(rs.schema) != schema_major(first.results.schema)) {
      throw MergeError(fmt::format(
          "{} ({}) and {} ({}) have different schema major versions; merge only results of "
          "one fa2bench major version",
          first.file, first.results.schema, in.file, rs.schema));
    }
    if (rs.config_sha256 != first.results.config_sha256) {
      throw MergeError(fmt::format(
          "{} (config {} sha256 {}) and {} (config {} sha256 {}) come from different configs; "
          "merge only the shards of one sweep",
          first.file, first.results.config_path, short_sha(first.results.config_sha256), in.file,
          rs.config_path, short_sha(rs.config_sha256)));
    }
    if (overrides_of(rs.tool) != overrides_of(first.results.tool)) {
      throw MergeError(fmt::format(
          "{} ran with environment overrides {} and {} with {}; merge only the shards of one "
          "sweep, run with the same environment",
          first.file, overrides_of(first.results.tool).dump(), in.file,
          overrides_of(rs.tool).dump()));
    }
    if (rs.target != first.results.target) {
      out.warnings.push_back(fmt::format("warning: {} ran on target {}, {} on target {}",
                                         first.file, first.results.target, in.file, rs.target));
    }
    if (rs.clocks != first.results.clocks) {
      out.warnings.push_back(fmt::format(
          "warning: {} ran with clocks {}, {} with clocks {}: the merged file records the first",
          first.file, first.results.clocks.dump(), in.file, rs.clocks.dump()));
    }
    if (rs.tool != first.results.tool) {
      out.warnings.push_back(fmt::format("warning: {} ({}) and {} ({}) come from different builds",
                                         first.file, first.results.tool.dump(), in.file,
                                         rs.tool.dump()));
    }
    const nlohmann::json id = device_identity(rs.device);
    if (std::find(device_ids.begin(), device_ids.end(), id) == device_ids.end()) {
      device_ids.push_back(id);
      devices.push_back(rs.device);
    }
    for (const CaseResult& r : rs.cases) {
      // Two sweeps of one config may hold the same shape: the sweep is part of the identity.
      const std::string case_id = r.c.id();
      const auto [it, added] = seen.emplace(r.c.sweep + "\x1f" + case_id, in.file);
      if (!added) {
        const std::string what = fmt::format("duplicate case {} (sweep {}) in {} (first in {})",
                                             case_id, r.c.sweep, in.file, it->second);
        if (options.strict) throw MergeError(what + "; --strict makes duplicates an error");
        out.duplicates.push_back(case_id);
        out.warnings.push_back("warning: " + what + ": keeping the first");
        continue;
      }
      m.cases.push_back(r);
    }
    m.interrupted = m.interrupted || rs.interrupted;
    m.wall_s += rs.wall_s;
  }
  if (devices.size() > 1) {
    out.devices = devices;
    std::vector<std::string> names;
    for (const nlohmann::json& d : devices) {
      names.push_back(d.is_object() && d.contains("name") ? d["name"].dump() : d.dump());
    }
    out.warnings.push_back(fmt::format(
        "warning: the shards ran on {} different devices ({}); \"device\" is the first file's, "
        "\"devices\" lists them all",
        devices.size(), fmt::join(names, ", ")));
  }

  out.missing_shards = missing_shards(inputs, out.warnings);
  if (!out.missing_shards.empty()) {
    out.warnings.push_back(
        fmt::format("warning: shard{} {} missing: the merged set holds {} of {} shards{}",
                    out.missing_shards.size() == 1 ? "" : "s", fmt::join(out.missing_shards, ", "),
                    first.results.shard_count - static_cast<int>(out.missing_shards.size()),
                    first.results.shard_count, options.allow_partial ? " (--allow-partial)" : ""));
  }
  // The checks and the expected cases come from a config: each input's echo must verify (an
  // echo edited to loosen a threshold, or a first file without one, must not decide the
  // verdict), unless --config names the config to judge by.
  std::optional<Config> echoed;
  for (const MergeInput& in : inputs) {
    std::string why;
    std::optional<Config> c = config_from_echo(recorded_echo(in.results, in.file), &why);
    if (!c && !options.config) throw MergeError(why + " (merge takes --config too)");
    if (c && options.config) {
      const std::vector<std::string> diff = config_differences(c->raw, options.config->raw);
      if (!diff.empty())
        throw MergeError(fmt::format(
            "{} was run with other settings than --config {} asks for "
            "({}{}); only checks, allow_case_errors, name and "
            "description may differ",
            in.file, options.config->path, diff.front(), checks::and_more(diff.size() - 1)));
    }
    if (c && !echoed) echoed = std::move(c);
  }
  const Config& config = options.config ? *options.config : *echoed;
  // Back into the config's order, so merged shards read like the unsharded run.
  std::map<std::string, std::size_t> position;
  for (std::size_t i = 0; i < config.cases.size(); ++i)
    position.emplace(order_key(config.cases[i]), i);
  auto rank = [&](const CaseResult& r) {
    const auto it = position.find(order_key(r.c));
    return it == position.end() ? config.cases.size() : it->second;
  };
  std::stable_sort(m.cases.begin(), m.cases.end(),
                   [&](const CaseResult& a, const CaseResult& b) { return rank(a) < rank(b); });
  m.checks = evaluate_checks(config.checks, m.cases, m.device);
  explain_filtered_selections(m, config, m.checks);
  out.checks_evaluated = true;
  judge_by_gate(m, &config, GateOptions{config.allow_case_errors, options.allow_partial},
                out.gate_problems);
  return out;
}

std::string merged_results_json_text(const MergeOutcome& m) {
  if (m.devices.is_null()) return results_json_text(m.merged);
  const nlohmann::ordered_json base = json_detail::ordered_json_of(m.merged);
  nlohmann::ordered_json j;
  for (const auto& [key, value] : base.items()) {
    j[key] = value;
    // Converted, not parsed again: the device blocks came through parse_json_input.
    if (key == "device") j["devices"] = nlohmann::ordered_json(m.devices);
  }
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace fa2b
