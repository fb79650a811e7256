// SPDX-License-Identifier: Apache-2.0
// Where and how a sweep's cases run: the target (GPU or CPU), in this process or isolated in
// child processes, on one device or a pool of workers. Used by the sweep (app/sweep.h) only.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "app/exit_codes.h"
#include "app/sweep_args.h"
#include "runner/executor.h"
#include "runner/platform.h"
#include "runner/sweep_runner.h"

namespace fa2b {

struct SweepExecution {
  std::unique_ptr<Platform> platform;  // in-process runs only
  std::unique_ptr<CaseExecutor> executor;
  SweepTarget target;
  bool isolated = false;
  int workers = 1;
  // Isolated runs: a scratch folder in --out that marks the running isolated sweep. The
  // workers talk over sockets and write nothing there today; it stays so that a sweep killed
  // with -9 is still recognisable (the next sweep into --out removes it).
  std::string work_dir;
  // Creates work_dir (if any) once --out is locked; false with the reason printed.
  bool create_work_dir();
  ~SweepExecution();  // removes work_dir
};

// Null with `exit_code` set (and the reason printed) when the flags cannot be honoured.
std::unique_ptr<SweepExecution> set_up_execution(const SweepArgs& a, std::int64_t budget,
                                                 const DumpOptions& dump, int& exit_code);

}  // namespace fa2b
