// One case in a child process: `fa2bench run-case` (this same binary, /proc/self/exe), so a
// crash, a sticky CUDA error or a hang costs that case only and the next one gets a fresh
// process and CUDA context.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "core/result.h"
#include "runner/executor.h"

namespace fa2b {

// What every child is started with.
struct ChildSpec {
  std::string exe = "/proc/self/exe";
  std::string target;              // "cuda" or "cpu"
  std::int64_t memory_budget = 0;  // bytes, 0: none
  double timeout_s = 0;            // 0: none
  std::string work_dir;            // case and result files live here
  DumpOptions dump;
};

class ChildCase {
 public:
  // Writes the case file and starts the child on `device` (-1: the CPU target). A child that
  // cannot be started still yields a result (status error) from poll().
  ChildCase(const ChildSpec& spec, const Case& c, std::size_t index, int device);
  ChildCase(ChildCase&&) noexcept;
  ChildCase& operator=(ChildCase&&) noexcept;
  ChildCase(const ChildCase&) = delete;
  ChildCase& operator=(const ChildCase&) = delete;
  ~ChildCase();  // kills a child still running

  // Non-blocking: the result once the child ended (or was killed for running past the
  // timeout), nullopt while it runs.
  std::optional<CaseResult> poll();
  // Kills the child (and its process group) and reaps it; its case has no result.
  void abandon();
  std::size_t index() const { return index_; }

 private:
  CaseResult finish(int wait_status);
  void cleanup_files();

  const ChildSpec* spec_ = nullptr;
  Case case_;
  std::size_t index_ = 0;
  pid_t pid_ = -1;
  std::string case_file_, result_file_;
  std::string start_error_;
  std::chrono::steady_clock::time_point deadline_;
};

// "was killed by signal 11 (Segmentation fault)", "exited with status 3".
std::string describe_wait_status(int status);

}  // namespace fa2b
