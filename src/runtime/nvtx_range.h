// SPDX-License-Identifier: Apache-2.0
// NVTX ranges for the profilers (nsys, ncu --nvtx): one around each case and each timed sample,
// named by case id. NVTX3 is header-only and ships with the CUDA toolkit; builds without CUDA
// (or a toolkit without nvtx3) get a range that does nothing, and callers skip building names.
#pragma once

#include <string>

#if defined(FA2BENCH_WITH_CUDA) && __has_include(<nvtx3/nvToolsExt.h>)
#include <nvtx3/nvToolsExt.h>
#define FA2BENCH_HAS_NVTX 1
#else
#define FA2BENCH_HAS_NVTX 0
#endif

namespace fa2b {

// Whether ranges reach a profiler: when false, names need not be built.
inline constexpr bool kNvtxEnabled = FA2BENCH_HAS_NVTX != 0;

// Pushes a range for its lifetime (a no-op without NVTX, or with an empty name). Without a
// profiler attached, NVTX3's push and pop are a few instructions.
class NvtxRange {
 public:
  explicit NvtxRange(const std::string& name) : pushed_(kNvtxEnabled && !name.empty()) {
#if FA2BENCH_HAS_NVTX
    if (pushed_) nvtxRangePushA(name.c_str());
#endif
  }
  ~NvtxRange() {
#if FA2BENCH_HAS_NVTX
    if (pushed_) nvtxRangePop();
#endif
  }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;

 private:
  bool pushed_;
};

}  // namespace fa2b
