#include <algorithm>

#include "backends/backend.h"
#include "backends/cpu_backends.h"

#ifdef FA2BENCH_WITH_CUDA
#include "backends/cuda/cuda_backends.h"
#endif

namespace fa2b {

#ifndef FA2BENCH_WITH_CUDA
namespace {
// cudnn has no CPU counterpart: in a build without CUDA it is still a known name, unsupported.
class CudnnUnavailable final : public Backend {
 public:
  std::string_view name() const override { return "cudnn"; }
  bool on_device() const override { return true; }
  Support supports(const Case&, const TargetInfo&) const override {
    return Support::no("cudnn needs the cuda target");
  }
  void run(const AttnParams&, void*) override {}
};
}  // namespace
#endif
namespace {

std::vector<std::string>& names_list() {
  static std::vector<std::string> names = {"naive", "fa2",       "standard",
                                           "cudnn", "cpu-naive", "cpu-flash"};
  return names;
}

std::vector<std::pair<std::string, BackendFactory>>& extra_backends() {
  static std::vector<std::pair<std::string, BackendFactory>> extras;
  return extras;
}

}  // namespace

const std::vector<std::string>& known_backend_names() {
  return names_list();
}

void register_extra_backend(const std::string& name, BackendFactory factory) {
  auto& names = names_list();
  if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  extra_backends().emplace_back(name, factory);
}

bool is_device_backend(std::string_view name) {
  return name == "naive" || name == "fa2" || name == "standard" || name == "cudnn";
}

std::string cpu_counterpart(std::string_view name) {
  if (name == "naive") return "cpu-naive";
  if (name == "fa2") return "cpu-flash";
  if (name == "standard") return "cpu-naive";
  return {};  // cudnn has none: on the CPU target it is unsupported
}

std::unique_ptr<Backend> make_backend(std::string_view name) {
  for (const auto& [extra, factory] : extra_backends())
    if (extra == name) return factory();
  if (name == "cpu-naive") return make_cpu_naive_backend();
  if (name == "cpu-flash") return make_cpu_flash_backend();
#ifdef FA2BENCH_WITH_CUDA
  if (name == "naive") return make_naive_cuda_backend();
  if (name == "fa2") return make_fa2_cuda_backend();
  if (name == "standard") return make_standard_cuda_backend();
  if (name == "cudnn") return make_cudnn_backend();
#else
  if (name == "cudnn") return std::make_unique<CudnnUnavailable>();
#endif
  return nullptr;
}

}  // namespace fa2b
