// SPDX-License-Identifier: Apache-2.0
// cuDNN loaded at run time: dlopen("libcudnn.so.9") (or $FA2BENCH_CUDNN_PATH) and dlsym of the
// few backend-API functions the cudnn backend uses, so fa2bench runs where cuDNN is absent.
#pragma once

#include <string>

// Set from outside (-DFA2BENCH_HAVE_CUDNN_HEADERS=0) only by the build's compile check of the
// branch without headers (CMakeLists.txt, fa2bench_cudnn_stub_check).
#if !defined(FA2BENCH_HAVE_CUDNN_HEADERS)
#if __has_include(<cudnn_graph.h>)
#define FA2BENCH_HAVE_CUDNN_HEADERS 1
#else
#define FA2BENCH_HAVE_CUDNN_HEADERS 0
#endif
#endif
#if FA2BENCH_HAVE_CUDNN_HEADERS
#include <cudnn_graph.h>
#endif

namespace fa2b {

#if FA2BENCH_HAVE_CUDNN_HEADERS
struct CudnnApi {
  decltype(&::cudnnGetVersion) GetVersion = nullptr;
  decltype(&::cudnnGetErrorString) GetErrorString = nullptr;
  decltype(&::cudnnGetLastErrorString) GetLastErrorString = nullptr;  // optional
  decltype(&::cudnnCreate) Create = nullptr;
  decltype(&::cudnnDestroy) Destroy = nullptr;
  decltype(&::cudnnSetStream) SetStream = nullptr;
  decltype(&::cudnnBackendCreateDescriptor) BackendCreateDescriptor = nullptr;
  decltype(&::cudnnBackendDestroyDescriptor) BackendDestroyDescriptor = nullptr;
  decltype(&::cudnnBackendSetAttribute) BackendSetAttribute = nullptr;
  decltype(&::cudnnBackendGetAttribute) BackendGetAttribute = nullptr;
  decltype(&::cudnnBackendFinalize) BackendFinalize = nullptr;
  decltype(&::cudnnBackendExecute) BackendExecute = nullptr;
};

// The process-wide API table, loaded on first use; nullptr when the library (or one of the
// functions) is missing, and `why` then says what dlopen/dlsym reported.
const CudnnApi* cudnn_api(std::string* why = nullptr);

// "<status name>: <cuDNN's last error message>" for a failed call.
std::string cudnn_status_text(const CudnnApi& api, cudnnStatus_t status);
#endif

// The loaded library's version ("9.14.0"), or "not found" (also when built without the cuDNN
// headers), for the results' device block.
std::string cudnn_version_string();

}  // namespace fa2b
