// SPDX-License-Identifier: Apache-2.0
// How a sweep's cases get run: in this process on one platform, or in long-lived worker
// processes (isolation), possibly several at once (a worker pool over devices or CPU slots).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/case_regex.h"
#include "core/result.h"
#include "runner/platform.h"

namespace fa2b {

inline constexpr std::int64_t kDefaultDumpMaxBytes = std::int64_t{1} << 30;

// `sweep --dump DIR --dump-filter REGEX`: which cases write their tensors, and where.
struct DumpOptions {
  std::string dir;  // empty: no dumps
  std::optional<CaseRegex> filter;
  std::string filter_text;
  std::int64_t max_bytes = kDefaultDumpMaxBytes;  // per case; larger cases are skipped
  bool wants(const Case& c) const;
};

struct CaseEvents {
  std::function<void(std::size_t index, int slot)> started;     // may be empty
  std::function<void(std::size_t index, CaseResult)> finished;  // required
  std::function<bool()> stop;  // checked between cases; may be empty
};

class CaseExecutor {
 public:
  virtual ~CaseExecutor() = default;
  // Runs cases[i] for every i in `todo` (in that order of starting), reporting each result as
  // it finishes (with several workers not in order). Returns when all ran, or early once
  // events.stop() is true: in-process after the current case; a pool abandons (kills) the
  // cases its children are running, which are then not reported.
  virtual void run(const std::vector<Case>& cases, const std::vector<std::size_t>& todo,
                   const CaseEvents& events) = 0;
  virtual int slots() const { return 1; }
  // Worker processes started so far (isolation); 0 when cases run in this process.
  virtual int workers_started() const { return 0; }
};

// Runs on `platform` in this process; CPU backends listed on the cuda target run on a host
// platform. The platform must outlive the executor.
std::unique_ptr<CaseExecutor> make_in_process_executor(Platform& platform, DumpOptions dump = {});

// The skeleton result of a case that did not produce its own: identity, target, FLOPs and the
// predicted memory, with the given status and reason.
CaseResult result_without_run(const Case& c, const std::string& target, Status status,
                              std::string reason);

}  // namespace fa2b
