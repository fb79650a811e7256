// SPDX-License-Identifier: Apache-2.0
#include "runner/worker_pool.h"

#include <chrono>
#include <optional>
#include <thread>

namespace fa2b {
namespace {

class WorkerPool final : public CaseExecutor {
 public:
  WorkerPool(WorkerSpec spec, std::vector<int> devices)
      : spec_(std::move(spec)), devices_(std::move(devices)) {
    if (devices_.empty()) devices_.push_back(-1);
  }

  int slots() const override { return static_cast<int>(devices_.size()); }
  int workers_started() const override { return started_; }

  void run(const std::vector<Case>& cases, const std::vector<std::size_t>& todo,
           const CaseEvents& events) override {
    std::vector<std::unique_ptr<WorkerProcess>> workers(devices_.size());
    std::size_t next = 0;
    while (true) {
      if (events.stop && events.stop()) {
        for (auto& w : workers) w.reset();  // kills them, abandoning their cases
        return;
      }
      bool busy = false;
      for (std::size_t s = 0; s < workers.size(); ++s) {
        auto& w = workers[s];
        if (w && !w->busy() && !w->usable()) w.reset();  // crashed, killed or poisoned
        if ((!w || !w->busy()) && next < todo.size()) {
          const std::size_t i = todo[next++];
          if (events.started) events.started(i, static_cast<int>(s));
          // A worker found dead while idle gets one replacement before the case is sent.
          if (!w || !w->send(cases[i], i)) {
            w = start(s);
            w->send(cases[i], i);
          }
        }
        if (!w || !w->busy()) continue;
        if (auto r = w->poll()) {
          events.finished(w->index(), std::move(*r));
        } else {
          busy = true;
        }
      }
      if (!busy && next >= todo.size()) {
        bool any = false;
        for (auto& w : workers) any = any || (w && w->busy());
        if (!any) break;
        continue;
      }
      if (busy) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    for (auto& w : workers) {
      if (w) w->close();
    }
  }

 private:
  std::unique_ptr<WorkerProcess> start(std::size_t slot) {
    ++started_;
    return std::make_unique<WorkerProcess>(spec_, devices_[slot]);
  }

  WorkerSpec spec_;
  std::vector<int> devices_;
  int started_ = 0;
};

}  // namespace

std::unique_ptr<CaseExecutor> make_worker_pool(WorkerSpec spec, std::vector<int> devices) {
  return std::make_unique<WorkerPool>(std::move(spec), std::move(devices));
}

}  // namespace fa2b
