#include <string>

#include "backends/cuda/cuda_backends.h"
#include "fa2/fa2_fwd.h"
#include "runtime/cuda/cuda_check.h"

namespace fa2b {
namespace {

class Fa2CudaBackend final : public Backend {
 public:
  std::string_view name() const override { return "fa2"; }
  bool on_device() const override { return true; }

  Support supports(const Case& c, const TargetInfo& t) const override {
    const Support s = our_kernel_support(c, t, name(), fa2_fwd_supported);
    if (!s.ok) return s;
    return forward_only(c, name());  // until fa2_bwd is wired into run_backward()
  }

  void run(const AttnParams& p, void* stream) override {
    FA2B_CUDA_CHECK(fa2_fwd(p, static_cast<cudaStream_t>(stream)));
  }
};

}  // namespace

std::unique_ptr<Backend> make_fa2_cuda_backend() {
  return std::make_unique<Fa2CudaBackend>();
}

}  // namespace fa2b
