// SPDX-License-Identifier: Apache-2.0
// Isolation: one long-lived worker process per slot, a slot per device (`--devices`) or N CPU
// slots (the hidden `--cpu-workers N`, a testing aid). Each free slot's worker takes the next
// case; a worker is replaced only after a crash, a timeout or a poisoned context.
#pragma once

#include <memory>
#include <vector>

#include "runner/executor.h"
#include "runner/worker_process.h"

namespace fa2b {

// `devices`: one entry per slot, the CUDA device index (-1 for a CPU slot). One slot is plain
// isolation: cases one after another in one worker process.
std::unique_ptr<CaseExecutor> make_worker_pool(WorkerSpec spec, std::vector<int> devices);

}  // namespace fa2b
