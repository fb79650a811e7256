// SPDX-License-Identifier: Apache-2.0
// What `sweep` prints from the application's outcome (app/sweep.h): the tables and closing
// lines on stdout, then the reason a sweep did not pass on stderr.
#pragma once

#include "app/model_sweep.h"
#include "app/sweep.h"

namespace fa2b {

// Whichever sweep the outcome holds (nothing when it stopped before: its reason is printed).
void print_sweep_outcome(const app::SweepOutcome& outcome);

// The transformer sweep's step table, one line per step as it finishes.
app::ModelStepPrinter model_step_table();

// The case and verdict tables, the files written and the wall summary; then, on stderr, the
// interrupt, the device error or the result gate's problems.
void print_attention_sweep(const app::AttentionSweepOutcome& outcome);
// The verdict table and the file written; then, on stderr, the interrupt or the gate's problems.
void print_model_sweep(const app::ModelSweepOutcome& outcome);

}  // namespace fa2b
