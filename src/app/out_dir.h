// SPDX-License-Identifier: Apache-2.0
// The --out directory of a sweep: owned by one sweep at a time (an advisory lock), and never
// holding the reports of one sweep beside the manifest (sweep.json) of another.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace fa2b {

// The lock file inside --out; it stays after the sweep (removing it would race with a sweep
// that just opened it), the lock itself goes with the process, kill -9 included.
inline constexpr const char* kOutLockName = ".fa2bench.lock";
// Isolated cases keep their files in DIR/.isolated-<pid>/ below --out.
inline constexpr const char* kWorkDirPrefix = ".isolated-";

class OutDirLock {
 public:
  // Locks `dir` (which must exist) for this process, or returns null with *why naming the
  // sweep that holds it (its pid).
  static std::unique_ptr<OutDirLock> acquire(const std::filesystem::path& dir, std::string* why);
  ~OutDirLock();
  OutDirLock(const OutDirLock&) = delete;
  OutDirLock& operator=(const OutDirLock&) = delete;

 private:
  explicit OutDirLock(int fd) : fd_(fd) {}
  int fd_;
};

// The files a sweep writes into --out, the manifest first.
const std::vector<std::string>& sweep_output_names();
// Those of them present in `dir`.
std::vector<std::string> existing_sweep_outputs(const std::filesystem::path& dir);
// Moves them into dir/previous-<YYYYmmdd-HHMMSS>[-N]/ and returns that folder; throws
// std::filesystem::filesystem_error when a move fails.
std::filesystem::path move_sweep_outputs_aside(const std::filesystem::path& dir);
// Removes the reports (results.json, results.csv, summary.md and `extra`, e.g. --junit), so
// that a sweep killed before writing its own leaves no earlier ones behind.
void remove_reports(const std::filesystem::path& dir, const std::vector<std::string>& extra);
// Removes every DIR/.isolated-* folder: under the lock no other sweep can be using one, so
// they are what a killed sweep left.
void remove_stale_work_dirs(const std::filesystem::path& dir);

// What every sweep does with --out before its first case, whatever its workload (attention
// cases, training steps): create it; lock it for this process; unless `resuming`, refuse a
// folder holding an earlier sweep's files (or move them aside with `overwrite`); remove the
// reports (and `extra_reports`, e.g. --junit) so none outlives the run it describes, and the
// work folders a killed sweep left. The lock, or null with `exit_code` set after printing why.
std::unique_ptr<OutDirLock> claim_out_dir(const std::string& out, bool resuming, bool overwrite,
                                          const std::vector<std::string>& extra_reports,
                                          int& exit_code);

}  // namespace fa2b
