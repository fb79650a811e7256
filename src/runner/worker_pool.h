// Several child-process workers at once: one slot per device (`--devices`), or N CPU slots
// (the hidden `--cpu-workers N`, a testing aid). Each free slot takes the next case.
#pragma once

#include <memory>
#include <vector>

#include "runner/executor.h"
#include "runner/isolated_case.h"

namespace fa2b {

// `devices`: one entry per slot, the CUDA device index (-1 for a CPU slot). `spec.work_dir`
// must exist. One slot is plain isolation: cases one after another, each in its own process.
std::unique_ptr<CaseExecutor> make_worker_pool(ChildSpec spec, std::vector<int> devices);

}  // namespace fa2b
