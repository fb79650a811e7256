// SPDX-License-Identifier: Apache-2.0
// `sweep --resume DIR`: the manifest a sweep writes when it starts (DIR/sweep.json), reading
// back the cases DIR/results.jsonl holds, and matching them to the cases still to run.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "runner/shard.h"

namespace fa2b {

inline constexpr const char* kManifestSchema = "fa2bench/sweep-manifest/1";

// What a sweep was started with: enough to refuse a changed config and to run it again.
struct SweepManifest {
  std::string config_path;  // as the results record it ("<built-in quickstart>" without one)
  std::string config_file;  // the --config argument, absolute; empty for the built-in one
  std::string config_sha256;
  std::vector<std::string> set, backends;  // --set and --backends as given
  std::string inputs;                      // --inputs as given (empty: the config's)
  std::string filter;                      // --filter as given
  std::optional<Shard> shard;
  std::string requested_target;  // --target as given (auto, cuda, cpu)
  std::string target;            // the target the cases run on
  std::vector<std::string> case_ids;
  // Options that change what a case measures, restored by --resume ("run" in sweep.json;
  // a manifest written before they were recorded reads as the defaults).
  std::string memory_budget;     // --memory-budget as given (empty: none)
  double case_timeout_s = 0;     // --case-timeout (0: none)
  std::optional<bool> isolated;  // whether the cases ran in worker processes
  std::string dump_dir;          // --dump, absolute (empty: none)
  std::string dump_filter;       // --dump-filter
  bool profile_once = false;     // --profile-once
  // The environment overrides in force (tool.overrides, backends/env_overrides.h); nullopt in
  // manifests written before they were recorded.
  std::optional<nlohmann::json> overrides;
};

nlohmann::json to_json(const SweepManifest& m);
// Throws ResultsFileError naming `path` when the manifest is missing or unusable.
SweepManifest read_manifest(const std::string& path);
void write_manifest(const SweepManifest& m, const std::string& path);

struct JsonlContents {
  std::vector<CaseResult> results;
  std::vector<std::string> lines;     // the raw text of each result, same order
  std::vector<std::string> warnings;  // e.g. a truncated last line that was ignored
};
// Reads a results.jsonl. A last line that does not parse (the sweep was killed while writing
// it) is ignored with a warning; any other bad line throws ResultsFileError (file and line).
// A missing file reads as empty.
JsonlContents read_results_jsonl(const std::string& path);

// For each case, the earlier result of the same case (same sweep and id), if any. Each earlier
// result is used at most once; `unmatched` (when given) counts those no case took.
std::vector<std::optional<CaseResult>> match_finished(const std::vector<Case>& cases,
                                                      const std::vector<CaseResult>& earlier,
                                                      std::size_t* unmatched = nullptr);

}  // namespace fa2b
