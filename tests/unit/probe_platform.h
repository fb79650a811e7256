// SPDX-License-Identifier: Apache-2.0
// The host platform with a GPU-state probe whose readings a test scripts (reading number ->
// reading), for the runner's throttle, sustained and settle paths without a GPU.
#pragma once

#include <functional>
#include <limits>
#include <memory>
#include <string>

#include "core/case.h"
#include "core/gpu_state.h"
#include "runner/platform.h"

namespace fa2b {

// A reading at 1980 MHz with NVML throttle-reason `bits` (0x4: sw_power_cap; 0x1: idle).
inline GpuReading with_reasons(std::uint64_t bits) {
  GpuReading g;
  g.sm_mhz = 1980;
  g.throttle = bits;
  g.throttle_known = true;
  return g;
}

// A cpu-flash case that runs in milliseconds, timed exactly `samples` times after no warm-up
// (the spread target never stops the sampling first).
inline Case tiny_timed_case(int samples) {
  Case c;
  c.sweep = "test";
  c.backend = c.role = "cpu-flash";
  c.B = 1;
  c.H = c.H_kv = 1;
  c.T_q = c.T_k = 8;
  c.D = 32;
  c.measure.warmup = 0;
  c.measure.min_samples = samples;
  c.measure.max_samples = samples;
  c.measure.target_rel_spread = 1e9;
  return c;
}

class ProbePlatform : public Platform {
 public:
  using Script = std::function<GpuReading(int reading)>;
  class Probe final : public GpuStateProbe {
   public:
    explicit Probe(Script script) : script_(std::move(script)) {}
    GpuReading read() override { return script_(reads_++); }
    int reads() const { return reads_; }

   private:
    Script script_;
    int reads_ = 0;
  };
  // `with_probe` false: no probe at all, as on the CPU target.
  ProbePlatform(bool with_probe, Script script)
      : host_(make_host_platform()), with_(with_probe), probe_(std::move(script)) {}
  std::string target() const override { return host_->target(); }
  TargetInfo info() const override { return host_->info(); }
  nlohmann::json device_block() const override { return host_->device_block(); }
  MemoryTracker& tracker() override { return host_->tracker(); }
  void* stream() override { return host_->stream(); }
  void fill(void* p, const TensorDesc& t, DType d, std::uint64_t seed, InputTensor w,
            InputDist dist) override {
    host_->fill(p, t, d, seed, w, dist);
  }
  void fill_paged(void* pool, std::size_t pool_bytes, const TensorDesc& t, int page_size,
                  const std::int32_t* table, DType d, std::uint64_t seed, InputTensor w,
                  InputDist dist) override {
    host_->fill_paged(pool, pool_bytes, t, page_size, table, d, seed, w, dist);
  }
  void poison(void* p, std::size_t bytes) override { host_->poison(p, bytes); }
  std::int64_t count_nonfinite(const void* p, DType d, std::int64_t n) override {
    return host_->count_nonfinite(p, d, n);
  }
  void copy_to_host(void* dst, const void* src, std::size_t bytes) override {
    host_->copy_to_host(dst, src, bytes);
  }
  void copy_from_host(void* dst, const void* src, std::size_t bytes) override {
    host_->copy_from_host(dst, src, bytes);
  }
  double time_ms(const std::function<void()>& launch, bool flush) override {
    return host_->time_ms(launch, flush);
  }
  void check_after_run(const char* what) override { host_->check_after_run(what); }
  bool broken(std::string* why) const override { return host_->broken(why); }
  GpuStateProbe* gpu_state_probe() override { return with_ ? &probe_ : nullptr; }
  std::string gpu_state_absent() const override { return "no probe in this test"; }
  double copy_bw_gbs() const override {
    return with_ ? 4000.0 : std::numeric_limits<double>::quiet_NaN();
  }
  const Probe& probe() const { return probe_; }

 private:
  std::unique_ptr<Platform> host_;
  bool with_;
  Probe probe_;
};

}  // namespace fa2b
