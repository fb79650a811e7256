// SPDX-License-Identifier: Apache-2.0
// What the case runner needs from the place a backend runs: memory, input fill, poisoning,
// timing and copies. One implementation for host memory, one for a CUDA device.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "backends/backend.h"
#include "common/input_gen.h"
#include "core/case.h"
#include "runtime/gpu_state_probe.h"
#include "runtime/memory_tracker.h"
#include "verify/device_reference.h"

namespace fa2b {

struct TensorDesc {
  int B, heads, seq, D;
  Strides strides;
};

class Platform {
 public:
  virtual ~Platform() = default;
  virtual std::string target() const = 0;  // "cpu" or "cuda"
  virtual TargetInfo info() const = 0;
  virtual nlohmann::json device_block() const = 0;
  virtual MemoryTracker& tracker() = 0;
  virtual void* stream() = 0;

  virtual void fill(void* ptr, const TensorDesc& t, DType dtype, std::uint64_t seed,
                    InputTensor which, InputDist dist) = 0;
  // K or V of a paged case straight into its pool [pages, page_size, t.heads, t.D] (`pool`
  // holds pool_bytes): every element gets the value `fill` gives the logical tensor `t` (so a
  // paged case computes on the values of the contiguous one), its row j of (b, h) landing in
  // page table[b * pages_per_seq + j / page_size], row j % page_size; the rows past t.seq in
  // each sequence's last page are poisoned. `table` [t.B, pages_per_seq] is in the platform's
  // memory. runner/paged_staging.h's scatter_to_pages is the same layout, built on the host.
  virtual void fill_paged(void* pool, std::size_t pool_bytes, const TensorDesc& t, int page_size,
                          const std::int32_t* table, DType dtype, std::uint64_t seed,
                          InputTensor which, InputDist dist) = 0;
  // Sets every byte to 0xFF: NaN in fp16, bf16 and fp32, so unwritten elements are caught.
  virtual void poison(void* ptr, std::size_t bytes) = 0;
  virtual std::int64_t count_nonfinite(const void* ptr, DType dtype, std::int64_t n) = 0;
  virtual void copy_to_host(void* dst, const void* src, std::size_t bytes) = 0;
  // Host memory to the platform's (a paged case's pools and page table, staged on the host).
  virtual void copy_from_host(void* dst, const void* src, std::size_t bytes) = 0;
  // Times one call of `launch` in milliseconds (device events on CUDA, a steady clock on the
  // host), flushing the L2 cache first when `flush` is set and the platform has one.
  virtual double time_ms(const std::function<void()>& launch, bool flush) = 0;
  // measure.timing "graph" (docs/methods.md "Timing methods"). Whether the platform can time
  // CUDA-graph replays at all; false with the reason where it cannot (the host).
  virtual bool graph_support(std::string* why) const {
    if (why) *why = "graph timing needs the CUDA target";
    return false;
  }
  // Captures `launches` back-to-back calls of `launch` into one graph on the platform's stream
  // and instantiates it (nothing runs). Throws a descriptive std::runtime_error where the launch
  // cannot be captured (a host synchronization inside it), leaving the stream usable.
  virtual void capture_graph(const std::function<void()>& /*launch*/, int /*launches*/) {
    throw std::runtime_error("graph timing needs the CUDA target");
  }
  // Times one replay of the captured graph (all its launches) in milliseconds, flushing the L2
  // cache first, outside the timed region, when `flush` is set.
  virtual double time_graph_ms(bool /*flush*/) {
    throw std::runtime_error("graph timing needs the CUDA target");
  }
  // Frees the captured graph; a no-op without one.
  virtual void release_graph() {}
  // measure.timing "cold": the bytes of the last-level cache the input rotation must exceed
  // twice (the GPU's L2; on the host the last-level CPU cache, or 32 MiB where unknown).
  virtual std::int64_t cache_bytes() const { return std::int64_t{32} << 20; }
  // Raises a descriptive error if the last run left the platform in an error state.
  virtual void check_after_run(const char* what) = 0;
  // True when the platform can no longer run cases (a sticky CUDA error).
  virtual bool broken(std::string* why) const = 0;
  // Runs the float64 reference job on the platform's device, reading the case's tensors where
  // they are (verify/device_reference.h); false where the platform has no device reference
  // (the host: the runner then uses the host reference, verify/reference.h).
  virtual bool run_reference(const RefJob& /*job*/, RefJobOut& /*out*/) { return false; }
  // Readings of the device around the timed samples (results' gpu_state); null where there
  // are none, and gpu_state_absent() says why in one line.
  virtual GpuStateProbe* gpu_state_probe() { return nullptr; }
  virtual std::string gpu_state_absent() const { return "the cpu target has no GPU state"; }
  // Device-to-device copy bandwidth measured when the platform started (1e9 bytes read plus
  // written per second); NaN where there is none, and copy_bw_absent() says why.
  virtual double copy_bw_gbs() const { return std::numeric_limits<double>::quiet_NaN(); }
  virtual std::string copy_bw_absent() const { return "the cpu target has no device memory"; }
};

std::unique_ptr<Platform> make_host_platform();
// Null (with `why`) when built without CUDA or the device cannot be used.
std::unique_ptr<Platform> make_cuda_platform(int device, std::int64_t memory_budget,
                                             std::string* why);

}  // namespace fa2b
