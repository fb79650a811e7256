// SPDX-License-Identifier: Apache-2.0
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>

#include "common/device_utils.h"
#include "runner/cuda/copy_bw_probe.h"
#include "runner/platform.h"
#include "runtime/cuda/cuda_check.h"
#include "runtime/cuda/device_memory_tracker.h"
#include "runtime/device_info.h"
#include "verify/cuda/device_reference_launch.h"

namespace fa2b {
namespace {

KernelDType to_kernel(DType d) {
  return static_cast<KernelDType>(static_cast<int>(d));
}

// Non-copyable owners of the CUDA resources the platform holds for its lifetime.
struct Stream {
  cudaStream_t s = nullptr;
  Stream() { FA2B_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
  ~Stream() { (void)cudaStreamDestroy(s); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
};
struct Event {
  cudaEvent_t e = nullptr;
  Event() { FA2B_CUDA_CHECK(cudaEventCreate(&e)); }
  ~Event() { (void)cudaEventDestroy(e); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
};

class CudaPlatform final : public Platform {
 public:
  CudaPlatform(const GpuInfo& gpu, std::int64_t budget) : gpu_(gpu) {
    tracker_.set_budget(budget);
    // The flush buffer is the harness's own, outside every case's tracked peak: twice the L2,
    // written before each timed sample so no sample starts with warm inputs in L2.
    flush_bytes_ = static_cast<std::size_t>(std::max<std::int64_t>(gpu.l2_bytes, 1 << 20)) * 2;
    FA2B_CUDA_CHECK(cudaMalloc(&flush_, flush_bytes_));
    std::string why;
    probe_ = make_nvml_probe(gpu.pci_bus + ".0", &why);
    if (!probe_) probe_absent_ = "NVML unavailable: " + why;
    // Once per process, before any case allocates: the probe's buffers are gone by then.
    copy_bw_gbs_ = measure_copy_bw_gbs(kCopyProbeBytes, stream_.s, &copy_bw_absent_);
  }
  ~CudaPlatform() override {
    release_graph();
    (void)cudaFree(flush_);
  }

  std::string target() const override { return "cuda"; }
  TargetInfo info() const override { return target_info(gpu_); }
  nlohmann::json device_block() const override { return to_json(gpu_); }
  MemoryTracker& tracker() override { return tracker_; }
  void* stream() override { return stream_.s; }

  void fill(void* ptr, const TensorDesc& t, DType dtype, std::uint64_t seed, InputTensor which,
            InputDist dist) override {
    FA2B_CUDA_CHECK(fill_inputs(ptr, to_kernel(dtype), t.B, t.heads, t.seq, t.D, t.strides.b,
                                t.strides.h, t.strides.t, seed, which,
                                static_cast<KernelInputDist>(static_cast<int>(dist)), stream_.s));
  }

  void fill_paged(void* pool, std::size_t pool_bytes, const TensorDesc& t, int page_size,
                  const std::int32_t* table, DType dtype, std::uint64_t seed, InputTensor which,
                  InputDist dist) override {
    poison(pool, pool_bytes);
    FA2B_CUDA_CHECK(
        fill_paged_inputs(pool, to_kernel(dtype), t.B, t.heads, t.seq, t.D, page_size, table, seed,
                          which, static_cast<KernelInputDist>(static_cast<int>(dist)), stream_.s));
  }

  void poison(void* ptr, std::size_t bytes) override {
    FA2B_CUDA_CHECK(cudaMemsetAsync(ptr, 0xFF, bytes, stream_.s));
  }

  std::int64_t count_nonfinite(const void* ptr, DType dtype, std::int64_t n) override {
    std::int64_t count = 0;
    FA2B_CUDA_CHECK(fa2b::count_nonfinite(ptr, to_kernel(dtype), n, &count, stream_.s));
    return count;
  }

  void copy_to_host(void* dst, const void* src, std::size_t bytes) override {
    FA2B_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream_.s));
    FA2B_CUDA_CHECK(cudaStreamSynchronize(stream_.s));
  }

  void copy_from_host(void* dst, const void* src, std::size_t bytes) override {
    FA2B_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream_.s));
    FA2B_CUDA_CHECK(cudaStreamSynchronize(stream_.s));
  }

  bool run_reference(const RefJob& job, RefJobOut& out) override {
    FA2B_CUDA_CHECK(run_device_reference(job, out, stream_.s));
    return true;
  }

  double time_ms(const std::function<void()>& launch, bool flush) override {
    if (flush) FA2B_CUDA_CHECK(cudaMemsetAsync(flush_, 0, flush_bytes_, stream_.s));
    FA2B_CUDA_CHECK(cudaEventRecord(start_.e, stream_.s));
    launch();
    FA2B_CUDA_CHECK(cudaEventRecord(stop_.e, stream_.s));
    FA2B_CUDA_CHECK(cudaEventSynchronize(stop_.e));
    float ms = 0;
    FA2B_CUDA_CHECK(cudaEventElapsedTime(&ms, start_.e, stop_.e));
    return ms;
  }

  bool graph_support(std::string*) const override { return true; }

  // One graph of `launches` back-to-back calls, captured in thread-local mode: a call that is
  // not capturable (a host synchronization, a legacy-stream copy) fails the capture, which is
  // ended and its error cleared before the descriptive error is thrown.
  void capture_graph(const std::function<void()>& launch, int launches) override {
    release_graph();
    FA2B_CUDA_CHECK(cudaStreamSynchronize(stream_.s));
    FA2B_CUDA_CHECK(cudaStreamBeginCapture(stream_.s, cudaStreamCaptureModeThreadLocal));
    std::string failure;
    try {
      for (int i = 0; i < launches; ++i) launch();
    } catch (const std::exception& e) {
      failure = e.what();
    }
    cudaGraph_t graph = nullptr;
    const cudaError_t end = cudaStreamEndCapture(stream_.s, &graph);
    if (failure.empty() && end != cudaSuccess) failure = cudaGetErrorString(end);
    if (failure.empty() && graph == nullptr) failure = "the capture gave no graph";
    if (failure.empty()) {
      const cudaError_t inst = cudaGraphInstantiate(&exec_, graph, 0);
      if (inst != cudaSuccess) {
        exec_ = nullptr;
        failure = std::string("cudaGraphInstantiate: ") + cudaGetErrorString(inst);
      }
    }
    if (graph != nullptr) (void)cudaGraphDestroy(graph);
    if (!failure.empty()) {
      (void)cudaGetLastError();  // a failed capture's error is not sticky: clear it
      throw std::runtime_error(
          "graph timing: the case's launch could not be captured in a CUDA graph (" + failure +
          "); time it with measure.timing \"events\" or \"cold\"");
    }
    FA2B_CUDA_CHECK(cudaGraphUpload(exec_, stream_.s));
  }

  double time_graph_ms(bool flush) override {
    if (exec_ == nullptr) throw std::logic_error("time_graph_ms without a captured graph");
    if (flush) FA2B_CUDA_CHECK(cudaMemsetAsync(flush_, 0, flush_bytes_, stream_.s));
    FA2B_CUDA_CHECK(cudaEventRecord(start_.e, stream_.s));
    FA2B_CUDA_CHECK(cudaGraphLaunch(exec_, stream_.s));
    FA2B_CUDA_CHECK(cudaEventRecord(stop_.e, stream_.s));
    FA2B_CUDA_CHECK(cudaEventSynchronize(stop_.e));
    float ms = 0;
    FA2B_CUDA_CHECK(cudaEventElapsedTime(&ms, start_.e, stop_.e));
    return ms;
  }

  void release_graph() override {
    if (exec_ != nullptr) (void)cudaGraphExecDestroy(exec_);
    exec_ = nullptr;
  }

  std::int64_t cache_bytes() const override {
    return gpu_.l2_bytes > 0 ? gpu_.l2_bytes : Platform::cache_bytes();
  }

  void check_after_run(const char* what) override {
    const cudaError_t err = cudaStreamSynchronize(stream_.s);
    if (err != cudaSuccess) {
      if (is_sticky(err)) broken_ = fmt::format("{}: {}", what, cudaGetErrorString(err));
      throw CudaError(err, what, __FILE__, __LINE__);
    }
  }

  // A sticky error can surface in any CUDA call of a case (an event wait, a copy of the
  // verification rows), not only in check_after_run: the context itself is asked, once the
  // case is over, whether it still works.
  bool broken(std::string* why) const override {
    if (broken_.empty()) {
      const cudaError_t err = cudaDeviceSynchronize();
      if (is_sticky(err)) broken_ = fmt::format("after the case: {}", cudaGetErrorString(err));
    }
    if (broken_.empty()) return false;
    if (why) *why = broken_;
    return true;
  }

  GpuStateProbe* gpu_state_probe() override { return probe_.get(); }
  std::string gpu_state_absent() const override { return probe_absent_; }
  double copy_bw_gbs() const override { return copy_bw_gbs_; }
  std::string copy_bw_absent() const override { return copy_bw_absent_; }

 private:
  GpuInfo gpu_;
  DeviceMemoryTracker tracker_;
  Stream stream_;
  Event start_, stop_;
  void* flush_ = nullptr;
  std::size_t flush_bytes_ = 0;
  cudaGraphExec_t exec_ = nullptr;  // measure.timing "graph": the case's captured launches
  mutable std::string broken_;      // the first sticky error seen; the context is lost
  std::unique_ptr<GpuStateProbe> probe_;
  std::string probe_absent_;
  double copy_bw_gbs_ = 0;
  std::string copy_bw_absent_;
};

}  // namespace

std::unique_ptr<Platform> make_cuda_platform(int device, std::int64_t memory_budget,
                                             std::string* why) {
  const std::vector<GpuInfo> gpus = list_gpus(why);
  if (gpus.empty()) return nullptr;
  if (device < 0 || device >= static_cast<int>(gpus.size())) {
    if (why) {
      *why =
          fmt::format("--device {} does not exist ({} CUDA device(s) found)", device, gpus.size());
    }
    return nullptr;
  }
  const cudaError_t err = cudaSetDevice(device);
  if (err != cudaSuccess) {
    if (why) *why = fmt::format("cudaSetDevice({}) failed: {}", device, cudaGetErrorString(err));
    return nullptr;
  }
  return std::make_unique<CudaPlatform>(gpus[static_cast<std::size_t>(device)], memory_budget);
}

}  // namespace fa2b
