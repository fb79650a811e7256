// SPDX-License-Identifier: Apache-2.0
// `check`: a saved results file (attention or transformer) judged again by the checks of its
// verified config echo, or of --config when that asks for the same measurements. The command
// (cli/check_command.cpp) prints what this returns.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "checks/result_gate.h"
#include "core/result.h"

namespace fa2b::app {

struct CheckArgs {
  std::string results;
  std::string config;  // --config; empty: the echo in the results
  std::string junit;
  std::string summary_md;
};

struct CheckOutcome {
  // False when nothing was judged (the results or the config unusable; stderr said why): the
  // exit code is then kExitUsage.
  bool judged = false;
  std::string config_path;
  std::size_t judged_count = 0;  // cases, or steps for transformer results
  bool transformer = false;
  std::vector<Verdict> verdicts;
  std::vector<GateProblem> problems;
};

// Judges `a.results`, writing the JUnit and Markdown files asked for.
CheckOutcome run_check(const CheckArgs& a);

}  // namespace fa2b::app
