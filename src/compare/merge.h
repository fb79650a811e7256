// SPDX-License-Identifier: Apache-2.0
// `fa2bench merge`: combine shard results files (one config, run in slices) into one ResultSet.
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "config/config.h"
#include "core/result.h"

namespace fa2b {

// Files that must not be merged (different configs or schema majors, a duplicate case id
// under --strict, a config echo that is missing, edited or does not parse); the message names
// the files.
class MergeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct MergeInput {
  std::string file;
  ResultSet results;
};

struct MergeOptions {
  bool strict = false;  // a duplicate case id is an error instead of a warning
  // --allow-partial: shards (and so cases of the config's expansion) may be missing without
  // failing the merge; an interrupted shard still fails it.
  bool allow_partial = false;
  // --config: judge by this config instead of the inputs' echoes (for files written without
  // one, or whose echo was edited); refused when it asks for other measurements than an
  // input's verified echo records.
  const Config* config = nullptr;
};

struct MergeOutcome {
  ResultSet merged;
  // Null when every input has the same device block (ignoring "index" and "pci_bus", which
  // differ between the nodes of one cluster); else the distinct blocks in input order, and
  // `merged.device` is the first file's.
  nlohmann::json devices;
  std::vector<std::string> duplicates;  // ids seen more than once (the first was kept)
  std::vector<std::string> warnings;
  bool checks_evaluated = false;  // false when the inputs carry no config echo
  // "1/2" for each shard of the inputs' --shard I/N that no input holds (empty when an input
  // is unsharded, i.e. holds every shard).
  std::vector<std::string> missing_shards;
  // The gate's problems with the merged set (see checks/result_gate.h), one line each; when
  // any, the affected checks are `error` and merged.checks may end with "results_usable".
  std::vector<std::string> gate_problems;
};

// Merges in input order: the config (sha256 and echo) must be the same in every file, and so
// must the schema's major version. Every input's echo is verified against its recorded sha256
// (as `check` does); without options.config, an input without a usable echo is refused. Cases are
// put back in the config's expansion order (cases the config does not expand to stay at the end, in
// input order); the config's checks are re-evaluated on the merged cases, then judged by the gates'
// one rule (missing shards or cases, cases in error/timeout, ok cases without required metrics give
// verdict `error`). `interrupted` is true when any shard was; `wall_s` is the sum of the shards'.
MergeOutcome merge_results(const std::vector<MergeInput>& inputs, const MergeOptions& options);

// results.json text of a merge: the merged ResultSet, plus "devices" when they differ.
std::string merged_results_json_text(const MergeOutcome& m);

}  // namespace fa2b
