// SPDX-License-Identifier: Apache-2.0
#include "runtime/cuda/cudnn_api.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <mutex>

namespace fa2b {

#if FA2BENCH_HAVE_CUDNN_HEADERS
namespace {

struct Loaded {
  CudnnApi api;
  bool ok = false;
  std::string why;
};

template <typename F>
bool bind(void* lib, const char* name, F& fn, std::string& why) {
  void* sym = dlsym(lib, name);
  if (sym == nullptr) {
    const char* err = dlerror();
    why = err != nullptr ? err : fmt::format("symbol {} not found", name);
    return false;
  }
  fn = reinterpret_cast<F>(sym);
  return true;
}

Loaded load() {
  Loaded l;
  const char* env = std::getenv("FA2BENCH_CUDNN_PATH");
  const std::string path = env != nullptr && *env != '\0' ? env : "libcudnn.so.9";
  // The handle is never closed: the library stays loaded for the life of the process.
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* err = dlerror();
    l.why = err != nullptr ? err : path + ": cannot be loaded";
    return l;
  }
  CudnnApi& a = l.api;
  l.ok = bind(lib, "cudnnGetVersion", a.GetVersion, l.why) &&
         bind(lib, "cudnnGetErrorString", a.GetErrorString, l.why) &&
         bind(lib, "cudnnCreate", a.Create, l.why) && bind(lib, "cudnnDestroy", a.Destroy, l.why) &&
         bind(lib, "cudnnSetStream", a.SetStream, l.why) &&
         bind(lib, "cudnnBackendCreateDescriptor", a.BackendCreateDescriptor, l.why) &&
         bind(lib, "cudnnBackendDestroyDescriptor", a.BackendDestroyDescriptor, l.why) &&
         bind(lib, "cudnnBackendSetAttribute", a.BackendSetAttribute, l.why) &&
         bind(lib, "cudnnBackendGetAttribute", a.BackendGetAttribute, l.why) &&
         bind(lib, "cudnnBackendFinalize", a.BackendFinalize, l.why) &&
         bind(lib, "cudnnBackendExecute", a.BackendExecute, l.why);
  if (l.ok) {
    std::string ignored;
    if (!bind(lib, "cudnnGetLastErrorString", a.GetLastErrorString, ignored)) {
      a.GetLastErrorString = nullptr;
    }
  }
  return l;
}

const Loaded& loaded() {
  static const Loaded l = load();
  return l;
}

}  // namespace

const CudnnApi* cudnn_api(std::string* why) {
  const Loaded& l = loaded();
  if (!l.ok) {
    if (why) *why = l.why;
    return nullptr;
  }
  return &l.api;
}

std::string cudnn_status_text(const CudnnApi& api, cudnnStatus_t status) {
  std::string text = api.GetErrorString(status);
  if (api.GetLastErrorString != nullptr) {
    char msg[1024] = {0};
    api.GetLastErrorString(msg, sizeof(msg));
    if (msg[0] != '\0') text += fmt::format(": {}", msg);
  }
  return text;
}

std::string cudnn_version_string() {
  const CudnnApi* api = cudnn_api();
  if (api == nullptr) return "not found";
  const std::size_t v = api->GetVersion();
  return fmt::format("{}.{}.{}", v / 10000, v % 10000 / 100, v % 100);
}
#else
std::string cudnn_version_string() {
  return "not found";
}
#endif

}  // namespace fa2b
