// SPDX-License-Identifier: Apache-2.0
#include "runner/cuda/copy_bw_probe.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <limits>

namespace fa2b {
namespace {

struct DeviceBuffer {
  void* p = nullptr;
  ~DeviceBuffer() { (void)cudaFree(p); }
};
struct EventPair {
  cudaEvent_t start = nullptr, stop = nullptr;
  ~EventPair() {
    (void)cudaEventDestroy(start);
    (void)cudaEventDestroy(stop);
  }
};

double fail(std::string* why, const char* what, cudaError_t e) {
  if (why != nullptr) *why = std::string(what) + ": " + cudaGetErrorString(e);
  (void)cudaGetLastError();  // a failed allocation is not sticky; leave no error behind
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

double measure_copy_bw_gbs(std::size_t bytes, void* stream, std::string* why) {
  const auto s = static_cast<cudaStream_t>(stream);
  DeviceBuffer src, dst;
  EventPair ev;
  cudaError_t e = cudaMalloc(&src.p, bytes);
  if (e == cudaSuccess) e = cudaMalloc(&dst.p, bytes);
  if (e != cudaSuccess) return fail(why, "copy-bandwidth probe buffers", e);
  if ((e = cudaEventCreate(&ev.start)) != cudaSuccess ||
      (e = cudaEventCreate(&ev.stop)) != cudaSuccess) {
    return fail(why, "copy-bandwidth probe events", e);
  }
  // Written once so the copies read real pages, not a lazily mapped range.
  if ((e = cudaMemsetAsync(src.p, 0, bytes, s)) != cudaSuccess) return fail(why, "memset", e);
  float best_ms = std::numeric_limits<float>::infinity();
  for (int i = 0; i <= kCopyProbeTimedCopies; ++i) {  // i == 0: the warm-up
    if ((e = cudaEventRecord(ev.start, s)) != cudaSuccess ||
        (e = cudaMemcpyAsync(dst.p, src.p, bytes, cudaMemcpyDeviceToDevice, s)) != cudaSuccess ||
        (e = cudaEventRecord(ev.stop, s)) != cudaSuccess ||
        (e = cudaEventSynchronize(ev.stop)) != cudaSuccess) {
      return fail(why, "copy-bandwidth probe copy", e);
    }
    float ms = 0;
    if ((e = cudaEventElapsedTime(&ms, ev.start, ev.stop)) != cudaSuccess) {
      return fail(why, "copy-bandwidth probe timing", e);
    }
    if (i > 0) best_ms = std::min(best_ms, ms);
  }
  return 2.0 * static_cast<double>(bytes) / (static_cast<double>(best_ms) * 1e-3) / 1e9;
}

}  // namespace fa2b
