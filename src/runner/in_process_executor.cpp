// SPDX-License-Identifier: Apache-2.0
// Runs cases one after another in this process, on one platform.
#include <fmt/format.h>

#include "core/shape_algebra.h"
#include "runner/case_session.h"
#include "runner/executor.h"

namespace fa2b {

bool DumpOptions::wants(const Case& c) const {
  if (dir.empty()) return false;
  if (!filter) return true;
  return filter->search(c.id()) || filter->search(c.sweep + "/" + c.id());
}

CaseResult result_without_run(const Case& c, const std::string& target, Status status,
                              std::string reason) {
  CaseResult r;
  r.c = c;
  r.target = target;
  r.status = status;
  r.reason = std::move(reason);
  r.flops = case_flops(c);
  r.memory = predicted_memory(c);
  return r;
}

namespace {

class InProcessExecutor final : public CaseExecutor {
 public:
  InProcessExecutor(Platform& platform, DumpOptions dump)
      : session_(platform), dump_(std::move(dump)) {}

  void run(const std::vector<Case>& cases, const std::vector<std::size_t>& todo,
           const CaseEvents& events) override {
    for (std::size_t i : todo) {
      if (events.stop && events.stop()) return;
      const Case& c = cases[i];
      if (events.started) events.started(i, 0);
      const DumpRequest dump{dump_.dir, dump_.max_bytes};
      events.finished(i, session_.run(c, dump_.wants(c) ? &dump : nullptr));
    }
  }

 private:
  CaseSession session_;
  DumpOptions dump_;
};

}  // namespace

std::unique_ptr<CaseExecutor> make_in_process_executor(Platform& platform, DumpOptions dump) {
  return std::make_unique<InProcessExecutor>(platform, std::move(dump));
}

}  // namespace fa2b
