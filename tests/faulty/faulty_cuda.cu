// SPDX-License-Identifier: Apache-2.0
// faulty-cuda: a kernel that writes through a null pointer (an illegal address: a sticky
// error that ruins the CUDA context of the process that launched it).
#include <cuda_runtime.h>

#include "backends/backend.h"

namespace fa2b {
namespace {

__global__ void write_null(float* p) {
  p[threadIdx.x] = 1.0f;
}

class FaultyCuda final : public Backend {
 public:
  std::string_view name() const override { return "faulty-cuda"; }
  bool on_device() const override { return true; }
  Support supports(const Case&, const TargetInfo& t) const override {
    return t.cuda ? Support::yes() : Support::no("faulty-cuda needs a CUDA device");
  }
  void run(const AttnParams&, void* stream) override {
    write_null<<<1, 32, 0, static_cast<cudaStream_t>(stream)>>>(nullptr);
  }
};

}  // namespace

std::unique_ptr<Backend> make_faulty_cuda_backend() {
  return std::make_unique<FaultyCuda>();
}

}  // namespace fa2b
