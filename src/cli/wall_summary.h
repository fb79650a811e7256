// SPDX-License-Identifier: Apache-2.0
// The sweep's last line: how much of its wall time the timed samples were, where the rest of
// the cases' time went (wall_ms: setup, verify, timing), and, isolated, how many worker
// processes it started ("timed 8.1 s of 22.0 s wall (...); workers started: 1").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/result.h"

namespace fa2b {

// Counts only the cases this run ran: not those in `finished_before` (--resume). A negative
// `workers_started` (an in-process sweep) leaves the workers out.
std::string wall_summary_line(const ResultSet& rs,
                              const std::vector<std::optional<CaseResult>>& finished_before,
                              int workers_started);

}  // namespace fa2b
