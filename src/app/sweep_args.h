// SPDX-License-Identifier: Apache-2.0
// What a sweep is asked to do: the sweep command's flags as values, which the command fills
// from its command line (and tune from its own) and the application runs (app/sweep.h).
#pragma once

#include <string>
#include <vector>

namespace fa2b {

struct SweepArgs {
  std::string config;
  std::string out = "out";
  std::vector<std::string> backends;
  std::vector<std::string> set;
  std::string target = "auto";
  int device = 0;
  std::string filter;
  std::string junit;
  std::string summary_md;
  std::string memory_budget;
  std::string baseline = "naive";
  bool quiet = false;
  std::string resume;       // --resume DIR
  int isolate = -1;         // --isolate 1, --no-isolate 0, default -1 (on for cuda, off for cpu)
  double case_timeout = 0;  // seconds, 0: none (isolated cases only)
  std::string shard;        // "I/N"
  std::string devices;      // "all" or "0,1,..."
  int cpu_workers = 0;      // hidden testing aid: N parallel isolated CPU workers
  std::string inputs;       // normal|uniform|large|nan: measure.inputs for every case
  std::string dump;         // --dump DIR
  std::string dump_filter;  // --dump-filter REGEX
  bool overwrite = false;   // --overwrite: move an earlier sweep's files in --out aside
  bool case_timeout_given = false;  // --case-timeout on the command line (even 0)
  bool profile_once = false;        // --profile-once: each case run once, untimed, for profilers
  int lock_clocks_mhz = 0;          // --lock-clocks MHZ (0: the GPU's own clocks)
};

}  // namespace fa2b
