#include "runner/worker_pool.h"

#include <chrono>
#include <optional>
#include <thread>

namespace fa2b {
namespace {

class WorkerPool final : public CaseExecutor {
 public:
  WorkerPool(ChildSpec spec, std::vector<int> devices)
      : spec_(std::move(spec)), devices_(std::move(devices)) {
    if (devices_.empty()) devices_.push_back(-1);
  }

  int slots() const override { return static_cast<int>(devices_.size()); }

  void run(const std::vector<Case>& cases, const std::vector<std::size_t>& todo,
           const CaseEvents& events) override {
    std::vector<std::optional<ChildCase>> running(devices_.size());
    std::size_t next = 0;
    while (true) {
      if (events.stop && events.stop()) {
        for (auto& child : running) {
          if (child) child->abandon();
          child.reset();
        }
        return;
      }
      bool busy = false;
      for (std::size_t s = 0; s < running.size(); ++s) {
        if (!running[s] && next < todo.size()) {
          const std::size_t i = todo[next++];
          if (events.started) events.started(i, static_cast<int>(s));
          running[s].emplace(spec_, cases[i], i, devices_[s]);
        }
        if (!running[s]) continue;
        if (auto r = running[s]->poll()) {
          const std::size_t i = running[s]->index();
          running[s].reset();
          events.finished(i, std::move(*r));
        } else {
          busy = true;
        }
      }
      if (!busy && next >= todo.size()) {
        bool any = false;
        for (auto& child : running) any = any || child.has_value();
        if (!any) return;
        continue;
      }
      if (busy) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }

 private:
  ChildSpec spec_;
  std::vector<int> devices_;
};

}  // namespace

std::unique_ptr<CaseExecutor> make_worker_pool(ChildSpec spec, std::vector<int> devices) {
  return std::make_unique<WorkerPool>(std::move(spec), std::move(devices));
}

}  // namespace fa2b
