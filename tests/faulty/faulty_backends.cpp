// SPDX-License-Identifier: Apache-2.0
// Deliberately broken backends, registered only in the test binary fa2bench_faulty (the same
// main as fa2bench plus this file), to test case isolation and timeouts on the CPU target:
//   faulty-segv  raises SIGSEGV in its timed region
//   faulty-hang  never returns from its timed region
//   faulty-cuda  (CUDA builds) writes through a null pointer in a kernel: a sticky CUDA error
// and one that is not broken at all:
//   info-probe   cpu-flash with a backend_info ("info-probe: prepared T_q=<T_q>, ..."), to
//                check that Backend::info() reaches the results, also from an isolated case
#include <fmt/format.h>
#include <unistd.h>

#include <csignal>
#include <string>

#include "backends/backend.h"
#include "core/shape_algebra.h"

namespace fa2b {

#ifdef FA2BENCH_WITH_CUDA
std::unique_ptr<Backend> make_faulty_cuda_backend();  // faulty_cuda.cu
#endif

namespace {

class FaultyCpu final : public Backend {
 public:
  explicit FaultyCpu(bool hang) : hang_(hang) {}
  std::string_view name() const override { return hang_ ? "faulty-hang" : "faulty-segv"; }
  bool on_device() const override { return false; }
  Support supports(const Case&, const TargetInfo&) const override { return Support::yes(); }
  void run(const AttnParams&, void*) override {
    if (!hang_) std::raise(SIGSEGV);
    while (true) pause();
  }

 private:
  bool hang_;
};

class InfoProbe final : public Backend {
 public:
  InfoProbe() : flash_(make_backend("cpu-flash")) {}
  std::string_view name() const override { return "info-probe"; }
  bool on_device() const override { return false; }
  Support supports(const Case& c, const TargetInfo& t) const override {
    return flash_->supports(c, t);
  }
  void prepare(const Case& c, const AttnParams& p, MemoryTracker& tracker) override {
    flash_->prepare(c, p, tracker);
    info_ = fmt::format("info-probe: prepared T_q={}, \"quoted\", \u00b5s", p.T_q);
  }
  std::string info() const override { return info_; }
  void run(const AttnParams& p, void* stream) override { flash_->run(p, stream); }
  void run_backward(const AttnBwdParams& p, void* stream) override {
    flash_->run_backward(p, stream);
  }
  void release() override {
    flash_->release();
    info_.clear();
  }

 private:
  std::unique_ptr<Backend> flash_;
  std::string info_;
};

// Their catalog entries: every mode, streaming memory, the default row-sums backward workspace.
BackendEntry test_entry(const char* name, BackendDevice device, const char* description) {
  BackendEntry e;
  e.name = name;
  e.device = device;
  e.backward_workspace_bytes = row_sums_bytes;
  e.backward_workspace_note = "row sums, 4*B*H*T_q";
  e.modes = {Mode::fwd, Mode::bwd, Mode::fwd_bwd};
  e.description = description;
  return e;
}

struct Registrar {
  Registrar() {
    register_backend(test_entry("faulty-segv", BackendDevice::cpu, "raises SIGSEGV when timed"),
                     [] { return std::unique_ptr<Backend>(new FaultyCpu(false)); });
    register_backend(test_entry("faulty-hang", BackendDevice::cpu, "never returns when timed"),
                     [] { return std::unique_ptr<Backend>(new FaultyCpu(true)); });
    register_backend(test_entry("info-probe", BackendDevice::cpu, "cpu-flash with a backend_info"),
                     [] { return std::unique_ptr<Backend>(new InfoProbe()); });
#ifdef FA2BENCH_WITH_CUDA
    register_backend(
        test_entry("faulty-cuda", BackendDevice::cuda, "a kernel writing through a null pointer"),
        make_faulty_cuda_backend);
#endif
  }
} registrar;

}  // namespace
}  // namespace fa2b
