// Deliberately broken backends, registered only in the test binary fa2bench_faulty (the same
// main as fa2bench plus this file), to test case isolation and timeouts on the CPU target:
//   faulty-segv  raises SIGSEGV in its timed region
//   faulty-hang  never returns from its timed region
//   faulty-cuda  (CUDA builds) writes through a null pointer in a kernel: a sticky CUDA error
#include <unistd.h>

#include <csignal>

#include "backends/backend.h"

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

struct Registrar {
  Registrar() {
    register_extra_backend("faulty-segv",
                           [] { return std::unique_ptr<Backend>(new FaultyCpu(false)); });
    register_extra_backend("faulty-hang",
                           [] { return std::unique_ptr<Backend>(new FaultyCpu(true)); });
#ifdef FA2BENCH_WITH_CUDA
    register_extra_backend("faulty-cuda", make_faulty_cuda_backend);
#endif
  }
} registrar;

}  // namespace
}  // namespace fa2b
