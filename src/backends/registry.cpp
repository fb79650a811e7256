#include <algorithm>

#include "backends/backend.h"
#include "backends/cpu_backends.h"

#ifdef FA2BENCH_WITH_CUDA
#include "backends/cuda/cuda_backends.h"
#endif

namespace fa2b {

const std::vector<std::string>& known_backend_names() {
  static const std::vector<std::string> names = {"naive", "fa2", "cpu-naive", "cpu-flash"};
  return names;
}

bool is_device_backend(std::string_view name) { return name == "naive" || name == "fa2"; }

std::string cpu_counterpart(std::string_view name) {
  if (name == "naive") return "cpu-naive";
  if (name == "fa2") return "cpu-flash";
  return {};
}

std::unique_ptr<Backend> make_backend(std::string_view name) {
  if (name == "cpu-naive") return make_cpu_naive_backend();
  if (name == "cpu-flash") return make_cpu_flash_backend();
#ifdef FA2BENCH_WITH_CUDA
  if (name == "naive") return make_naive_cuda_backend();
  if (name == "fa2") return make_fa2_cuda_backend();
#endif
  return nullptr;
}

}  // namespace fa2b
