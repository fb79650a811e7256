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
  kExitOk = 0,          // every check passed
  kExitCheckFailed = 1,  // a check failed (or had no number to judge)
  kExitUsage = 2,       // usage or config error; nothing ran
  kExitRuntime = 3,     // runtime failure: no usable device, CUDA error that aborted the sweep
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
};
void add_sweep_command(CLI::App& app, int& exit_code);

void add_plan_command(CLI::App& app, int& exit_code);
void add_check_command(CLI::App& app, int& exit_code);
void add_validate_command(CLI::App& app, int& exit_code);
void add_devices_command(CLI::App& app, int& exit_code);
void add_compare_command(CLI::App& app, int& exit_code);
void add_merge_command(CLI::App& app, int& exit_code);

// "80GiB", "512MiB", "1.5GB", "1000000" → bytes; nullopt when malformed.
std::optional<std::int64_t> parse_size(const std::string& text);

}  // namespace fa2b
