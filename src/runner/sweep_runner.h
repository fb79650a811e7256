// Runs the cases of a config on one target, streaming each result to results.jsonl as it
// finishes, with progress on stderr.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "config/config.h"
#include "core/result.h"
#include "runner/platform.h"

namespace fa2b {

struct SweepOptions {
  std::string jsonl_path;  // empty: no streaming file
  bool progress = true;
};

// Rewrites each case for the platform's target: on the CPU target GPU backends run as their
// CPU counterparts (the case keeps the configured name as its role).
std::vector<Case> cases_for_target(const std::vector<Case>& cases, const std::string& target);

// Runs every case; the result set's context blocks (tool, host, device, config) are filled.
ResultSet run_sweep(const Config& config, const std::vector<Case>& cases, Platform& platform,
                    const SweepOptions& options);

}  // namespace fa2b
