// SPDX-License-Identifier: Apache-2.0
// One function per command; main.cpp only wires them to CLI11.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fa2b {

// Documented exit codes.
enum ExitCode : int {
  kExitOk = 0,           // every check passed
  kExitCheckFailed = 1,  // a check failed (or had no number to judge)
  kExitUsage = 2,        // usage or config error; nothing ran
  kExitRuntime = 3,      // runtime failure: no usable device, CUDA error that aborted the sweep
};

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
void add_sweep_command(CLI::App& app, int& exit_code);
// The options sweep and tune share. The references must outlive `cmd` (the commands keep their
// args alive in their callback).
void add_target_options(CLI::App* cmd, std::string& target, int& device);  // --target, --device
// --isolate sets `isolate` to 1, --no-isolate to 0; without either it keeps its default.
void add_isolate_flags(CLI::App* cmd, int& isolate);
// Hidden: the isolated worker process that runs case after case (see runner/worker_process.h).
void add_run_worker_command(CLI::App& app, int& exit_code);

void add_plan_command(CLI::App& app, int& exit_code);
void add_check_command(CLI::App& app, int& exit_code);
void add_validate_command(CLI::App& app, int& exit_code);
void add_devices_command(CLI::App& app, int& exit_code);
void add_backends_command(CLI::App& app, int& exit_code);
void add_compare_command(CLI::App& app, int& exit_code);
void add_merge_command(CLI::App& app, int& exit_code);
void add_tune_command(CLI::App& app, int& exit_code);
void add_export_command(CLI::App& app, int& exit_code);

// "80GiB", "512MiB", "1.5GB", "1000000", "2 ti" → bytes (units: CLI::AsSizeValue's table with
// kB = 1000, KiB = 1024; see parse_size.cpp); nullopt when malformed, not positive or over 9e18.
std::optional<std::int64_t> parse_size(const std::string& text);

}  // namespace fa2b
