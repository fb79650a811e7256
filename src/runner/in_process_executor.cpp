// Runs cases one after another in this process, on one platform.
#include <fmt/format.h>

#include <map>

#include "core/shape_algebra.h"
#include "runner/case_runner.h"
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
      : platform_(platform), dump_(std::move(dump)) {}

  void run(const std::vector<Case>& cases, const std::vector<std::size_t>& todo,
           const CaseEvents& events) override {
    for (std::size_t i : todo) {
      if (events.stop && events.stop()) return;
      const Case& c = cases[i];
      if (events.started) events.started(i, 0);
      auto& backend = backends_[c.backend];
      if (!backend) backend = make_backend(c.backend);
      if (!backend) {
        events.finished(i,
                        result_without_run(
                            c, platform_.target(), Status::unsupported,
                            fmt::format("backend {} is not built into this fa2bench", c.backend)));
        continue;
      }
      Platform* where = &platform_;
      if (!backend->on_device() && platform_.target() != "cpu") {
        if (!host_) host_ = make_host_platform();
        where = host_.get();
      }
      const DumpRequest dump{dump_.dir, dump_.max_bytes};
      events.finished(i, run_case(c, *backend, *where, dump_.wants(c) ? &dump : nullptr));
    }
  }

 private:
  Platform& platform_;
  DumpOptions dump_;
  // Backends live for the whole sweep so plans and handles are built once.
  std::map<std::string, std::unique_ptr<Backend>> backends_;
  std::unique_ptr<Platform> host_;  // CPU backends listed on the cuda target run on the host
};

}  // namespace

std::unique_ptr<CaseExecutor> make_in_process_executor(Platform& platform, DumpOptions dump) {
  return std::make_unique<InProcessExecutor>(platform, std::move(dump));
}

}  // namespace fa2b
