// SPDX-License-Identifier: Apache-2.0
// Factories bound to catalog names (core/backend_catalog.cpp holds everything else about a
// backend). A table rather than self-registering backend files: the host library is static, and
// the linker would drop a backend file that nothing references.
#include <algorithm>

#include "backends/backend.h"
#include "backends/cpu_backends.h"

#ifdef FA2BENCH_WITH_CUDA
#include "backends/cuda/cuda_backends.h"
#endif

namespace fa2b {
namespace {

#ifndef FA2BENCH_WITH_CUDA
// A CUDA backend without a CPU counterpart (cudnn) stays a known name in a build without CUDA,
// and says why it cannot run; the others run as their counterpart on the CPU target.
class NeedsCuda final : public Backend {
 public:
  explicit NeedsCuda(std::string name) : name_(std::move(name)) {}
  std::string_view name() const override { return name_; }
  bool on_device() const override { return true; }
  Support supports(const Case&, const TargetInfo&) const override {
    return Support::no(name_ + " needs the cuda target");
  }
  void run(const AttnParams&, void*) override {}

 private:
  std::string name_;
};
#endif

struct Factory {
  std::string name;
  BackendFactory make;
};

std::vector<Factory>& factories() {
  static std::vector<Factory> table = {
      {"cpu-naive", make_cpu_naive_backend},    {"cpu-flash", make_cpu_flash_backend},
#ifdef FA2BENCH_WITH_CUDA
      {"naive", make_naive_cuda_backend},       {"fa2", make_fa2_cuda_backend},
      {"standard", make_standard_cuda_backend}, {"cudnn", make_cudnn_backend},
      {"fa2-dev", make_fa2_dev_cuda_backend},   {"fa3", make_fa3_cuda_backend},
      {"fa3-dev", make_fa3_dev_cuda_backend},
#endif
  };
  return table;
}

const Factory* find_factory(std::string_view name) {
  for (const Factory& f : factories())
    if (f.name == name) return &f;
  return nullptr;
}

}  // namespace

bool backend_built(std::string_view name) {
  return find_factory(name) != nullptr;
}

std::unique_ptr<Backend> make_backend(std::string_view name) {
  if (const Factory* f = find_factory(name)) return f->make();
#ifndef FA2BENCH_WITH_CUDA
  const BackendEntry* e = find_backend_entry(name);
  if (e && e->device == BackendDevice::cuda && e->cpu_counterpart.empty())
    return std::make_unique<NeedsCuda>(e->name);
#endif
  return nullptr;
}

void register_backend(BackendEntry entry, BackendFactory factory) {
  const std::string name = entry.name;
  add_backend_entry(std::move(entry));
  factories().push_back({name, factory});
}

}  // namespace fa2b
