// SPDX-License-Identifier: Apache-2.0
// `fa2bench tune` as a function of its options, for the tests (the flags: tune_command.cpp).
#pragma once

#include "app/tune.h"

namespace fa2b {

// Runs the tune sweep (app::run_tune_sweep) and prints its outcome, then ranks
// --out/results.json, prints the ranking and writes it to --out/tune.md. The sweep's exit code,
// or 3 when the ranking cannot be read or written.
int run_tune_command(const TuneArgs& args);

}  // namespace fa2b
