// SPDX-License-Identifier: Apache-2.0
// Compact terminal tables printed at the end of a command.
#pragma once

#include <vector>

#include "checks/result_gate.h"
#include "core/result.h"

namespace fa2b {

void print_case_table(const std::vector<CaseResult>& cases);
void print_verdict_table(const std::vector<Verdict>& verdicts);
std::string human_bytes(double bytes);
// The gate's problems on stderr, one a line ("fa2bench: case X is error: ..."), the first 20.
void print_gate_problems(const std::vector<GateProblem>& problems);

}  // namespace fa2b
