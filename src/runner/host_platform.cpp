// SPDX-License-Identifier: Apache-2.0
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

#include "common/numeric.h"
#include "runner/platform.h"
#include "runtime/device_info.h"

namespace fa2b {
namespace {

class HostPlatform final : public Platform {
 public:
  std::string target() const override { return "cpu"; }
  TargetInfo info() const override { return cpu_target_info(); }
  nlohmann::json device_block() const override { return cpu_device_block(); }
  MemoryTracker& tracker() override { return tracker_; }
  void* stream() override { return nullptr; }

  void fill(void* ptr, const TensorDesc& t, DType dtype, std::uint64_t seed, InputTensor which,
            InputDist dist) override {
    fill_rows(ptr, t, dtype, seed, which, dist,
              [&t](std::int64_t b, std::int64_t h, std::int64_t s) {
                return b * t.strides.b + h * t.strides.h + s * t.strides.t;
              });
  }

  void fill_paged(void* pool, std::size_t pool_bytes, const TensorDesc& t, int page_size,
                  const std::int32_t* table, DType dtype, std::uint64_t seed, InputTensor which,
                  InputDist dist) override {
    poison(pool, pool_bytes);
    const std::int64_t pages_per_seq = (t.seq + page_size - 1) / page_size;
    fill_rows(pool, t, dtype, seed, which, dist,
              [&](std::int64_t b, std::int64_t h, std::int64_t s) {
                const std::int64_t page = table[b * pages_per_seq + s / page_size];
                return ((page * page_size + s % page_size) * t.heads + h) * t.D;
              });
  }

  void poison(void* ptr, std::size_t bytes) override { std::memset(ptr, 0xFF, bytes); }

  std::int64_t count_nonfinite(const void* ptr, DType dtype, std::int64_t n) override {
    std::int64_t bad = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      float x;
      if (dtype == DType::fp32) {
        x = static_cast<const float*>(ptr)[i];
      } else {
        const std::uint16_t h = static_cast<const std::uint16_t*>(ptr)[i];
        x = dtype == DType::fp16 ? fp16_to_float(h) : bf16_to_float(h);
      }
      bad += std::isfinite(x) ? 0 : 1;
    }
    return bad;
  }

  void copy_to_host(void* dst, const void* src, std::size_t bytes) override {
    std::memcpy(dst, src, bytes);
  }
  void copy_from_host(void* dst, const void* src, std::size_t bytes) override {
    std::memcpy(dst, src, bytes);
  }

  double time_ms(const std::function<void()>& launch, bool) override {
    const auto t0 = std::chrono::steady_clock::now();
    launch();
    const auto t1 = std::chrono::steady_clock::now();
    return std::chrono::duration<double, std::milli>(t1 - t0).count();
  }

  // The last-level CPU cache glibc reports (L3, else L2), 32 MiB where it reports none.
  std::int64_t cache_bytes() const override {
#if defined(_SC_LEVEL3_CACHE_SIZE)
    if (const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE); l3 > 0) return l3;
#endif
#if defined(_SC_LEVEL2_CACHE_SIZE)
    if (const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE); l2 > 0) return l2;
#endif
    return Platform::cache_bytes();
  }

  void check_after_run(const char*) override {}
  bool broken(std::string*) const override {
    return false;
  }

 private:
  // Every logical row (b, h, s) of `t` gets input_value's D elements at element offset
  // base_of(b, h, s) of `ptr`: the one fill behind `fill` (strided) and `fill_paged` (pages).
  template <typename BaseOf>
  void fill_rows(void* ptr, const TensorDesc& t, DType dtype, std::uint64_t seed, InputTensor which,
                 InputDist dist, BaseOf base_of) {
    const auto kdist = static_cast<KernelInputDist>(static_cast<int>(dist));
    const std::int64_t rows = static_cast<std::int64_t>(t.B) * t.heads * t.seq;
    parallel_rows(rows, [&](std::int64_t r) {
      const std::int64_t s = r % t.seq, h = (r / t.seq) % t.heads, b = r / (t.seq * t.heads);
      const std::int64_t base = base_of(b, h, s);
      for (std::int64_t d = 0; d < t.D; ++d) {
        store(ptr, base + d, dtype,
              input_value(seed, which, static_cast<std::uint64_t>(r * t.D + d), kdist));
      }
    });
  }

  // Element i of a tensor of `dtype` at `ptr` set to x, rounded as the device rounds it.
  static void store(void* ptr, std::int64_t i, DType dtype, float x) {
    if (dtype == DType::fp32) {
      static_cast<float*>(ptr)[i] = x;
    } else {
      static_cast<std::uint16_t*>(ptr)[i] =
          dtype == DType::fp16 ? float_to_fp16(x) : float_to_bf16(x);
    }
  }

  template <typename F>
  static void parallel_rows(std::int64_t n, F&& f) {
    const std::int64_t threads =
        std::max<std::int64_t>(1, std::min<std::int64_t>(cpu_threads(), n));
    std::vector<std::thread> pool;
    for (std::int64_t t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        for (std::int64_t i = t; i < n; i += threads) f(i);
      });
    }
    for (auto& th : pool) th.join();
  }

  HostMemoryTracker tracker_;
};

}  // namespace

std::unique_ptr<Platform> make_host_platform() {
  return std::make_unique<HostPlatform>();
}

#ifndef FA2BENCH_WITH_CUDA
std::unique_ptr<Platform> make_cuda_platform(int, std::int64_t, std::string* why) {
  if (why) *why = "this build of fa2bench has no CUDA support";
  return nullptr;
}
#endif

}  // namespace fa2b
