// SPDX-License-Identifier: Apache-2.0
// One long-lived isolated worker: `fa2bench run-worker` (this same binary, /proc/self/exe) in a
// child process that runs case after case sent over a socket, keeping its CUDA context,
// backends and plans between cases. A crash, a hang past --case-timeout or a poisoned (sticky
// error) context costs the case it happened in only: the worker is then retired and the sweep
// starts a fresh one for the next case.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "core/result.h"
#include "runner/executor.h"

namespace fa2b {

// What every worker is started with.
struct WorkerSpec {
  std::string exe = "/proc/self/exe";
  std::string target;              // "cuda" or "cpu"
  std::int64_t memory_budget = 0;  // bytes, 0: none
  double timeout_s = 0;            // per case; 0: none
  DumpOptions dump;
};

class WorkerProcess {
 public:
  // Starts the worker on `device` (-1: the CPU target). One that cannot be started still
  // answers: the first case sent gets a result with status error.
  WorkerProcess(const WorkerSpec& spec, int device);
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;
  ~WorkerProcess();  // kills a worker still running

  // Hands the worker case `index`; false when it is gone (it died between cases): start a new
  // one and send the case there.
  bool send(const Case& c, std::size_t index);
  // Non-blocking: the sent case's result once there is one (or the worker died or ran past the
  // timeout), nullopt while it runs.
  std::optional<CaseResult> poll();
  bool busy() const { return busy_; }
  std::size_t index() const { return index_; }
  // False once the worker must not be given another case (crashed, killed, poisoned).
  bool usable() const { return usable_; }
  pid_t pid() const { return pid_; }
  // Asks an idle worker to exit and reaps it (killed if it does not exit within a second).
  void close();
  // Kills the worker (and its process group) and reaps it; a case it runs has no result.
  void kill_now();

 private:
  CaseResult died(const std::string& how);
  bool read_available(bool& eof);
  int reap(bool wait_briefly);

  const WorkerSpec* spec_ = nullptr;
  pid_t pid_ = -1;
  int fd_ = -1;
  std::string start_error_;
  std::string buffer_;  // bytes read after the last complete line
  bool busy_ = false, usable_ = true;
  Case case_;
  std::size_t index_ = 0;
  std::chrono::steady_clock::time_point deadline_;
};

// "was killed by signal 11 (Segmentation fault)", "exited with status 3".
std::string describe_wait_status(int status);

}  // namespace fa2b
