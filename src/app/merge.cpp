// SPDX-License-Identifier: Apache-2.0
#include "app/merge.h"

#include <fmt/format.h>

#include <filesystem>
#include <optional>
#include <stdexcept>

#include "app/exit_codes.h"
#include "app/load_config_or_report.h"
#include "config/config.h"
#include "io/atomic_file.h"
#include "io/results_json.h"
#include "report/report.h"

namespace fa2b::app {

MergeRun run_merge(const MergeArgs& a) {
  MergeRun run;
  std::vector<MergeInput> inputs;
  try {
    for (const std::string& file : a.inputs) inputs.push_back({file, load_results(file)});
  } catch (const ResultsFileError& e) {
    fmt::print(stderr, "fa2bench: {}\n", e.what());
    run.status = kExitUsage;
    return run;
  }
  std::optional<Config> config;
  if (!a.config.empty()) {
    config = load_config_or_report(a.config, {});
    if (!config) {
      run.status = kExitUsage;
      return run;
    }
  }
  MergeOutcome& m = run.merged;
  try {
    m = merge_results(inputs, {a.strict, a.allow_partial, config ? &*config : nullptr});
  } catch (const MergeError& e) {
    fmt::print(stderr, "fa2bench: {}\n", e.what());
    run.status = kExitUsage;
    return run;
  }
  for (const std::string& w : m.warnings) fmt::print(stderr, "fa2bench: {}\n", w);
  try {
    for (const std::string* path : {&a.out, &a.csv, &a.summary_md, &a.junit}) {
      const std::filesystem::path parent = std::filesystem::path(*path).parent_path();
      if (!path->empty() && !parent.empty()) std::filesystem::create_directories(parent);
    }
    write_text_file_atomic(a.out, merged_results_json_text(m));
    if (!a.csv.empty()) write_results_csv(m.merged, a.csv);
    if (!a.summary_md.empty()) write_summary_md(m.merged, a.summary_md);
    if (!a.junit.empty()) write_junit(m.merged, a.junit);
  } catch (const std::runtime_error& e) {
    fmt::print(stderr, "fa2bench: {}\n", e.what());
    run.status = kExitRuntime;
    return run;
  }
  run.files = inputs.size();
  run.status = kExitOk;
  return run;
}

}  // namespace fa2b::app
