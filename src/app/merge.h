// SPDX-License-Identifier: Apache-2.0
// `merge`: the results files of one config's shards read, merged and judged (compare/merge.h),
// and the merged set written as JSON and the reports asked for. The command
// (cli/merge_command.cpp) prints what this returns.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "compare/merge.h"

namespace fa2b::app {

struct MergeArgs {
  std::vector<std::string> inputs;
  std::string out;
  bool strict = false;
  bool allow_partial = false;
  std::string csv;
  std::string summary_md;
  std::string junit;
  std::string config;
};

struct MergeRun {
  // kExitOk when merged and written; kExitUsage (unusable input or config, refused merge) or
  // kExitRuntime (a write failed) after saying why on stderr.
  int status = 0;
  std::size_t files = 0;
  MergeOutcome merged;
};

MergeRun run_merge(const MergeArgs& a);

}  // namespace fa2b::app
