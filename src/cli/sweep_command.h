// SPDX-License-Identifier: Apache-2.0
// `fa2bench sweep` as a function, for the commands that run their cases through it (`tune`).
#pragma once

#include "app/sweep.h"
#include "app/sweep_args.h"

namespace fa2b {

using app::ConfigRewrite;

// The sweep command: runs app::run_sweep (every flag of SweepArgs, the reports in --out) and
// prints its outcome; returns the exit code. `rewrite` and `*reports_written` as there.
int run_sweep_command(SweepArgs a, const ConfigRewrite& rewrite = {},
                      bool* reports_written = nullptr);

}  // namespace fa2b
