// SPDX-License-Identifier: Apache-2.0
// The documented exit codes (main.cpp's help lists them) and the one the verdicts decide.
#pragma once

#include <vector>

#include "core/result.h"

namespace fa2b {

// Documented exit codes.
enum ExitCode : int {
  kExitOk = 0,           // every check passed
  kExitCheckFailed = 1,  // a check failed (or had no number to judge)
  kExitUsage = 2,        // usage or config error; nothing ran
  kExitRuntime = 3,      // runtime failure: no usable device, CUDA error that aborted the sweep
};

// 0 when every verdict passed, 1 otherwise.
int verdict_exit_code(const std::vector<Verdict>& verdicts);

}  // namespace fa2b
