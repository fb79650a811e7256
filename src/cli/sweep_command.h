// SPDX-License-Identifier: Apache-2.0
// `fa2bench sweep` as a function, for the commands that run their cases through it (`tune`).
#pragma once

#include <functional>

#include "cli/commands.h"
#include "config/config.h"

namespace fa2b {

// Changes the loaded config (after --set/--backends) before anything runs: its cases, its
// checks. Returns kExitOk to go on, or the exit code to stop with (its reason printed).
using ConfigRewrite = std::function<int(Config&)>;

// The sweep command: every flag of SweepArgs, the reports in --out, the exit code. `rewrite`
// (when set) replaces the config's contents first; the results then record the rewritten
// config (its echo and sha256), which `check` and `merge` read as any other. `*reports_written`
// (when given) says whether this run wrote --out/results.json.
int run_sweep_command(SweepArgs a, const ConfigRewrite& rewrite = {},
                      bool* reports_written = nullptr);

}  // namespace fa2b
