// SPDX-License-Identifier: Apache-2.0
// Fully connected layers as plain loops: float32 accumulation, rows split across threads.
// Speed is not the point on the CPU target; the GPU step brings cuBLASLt.
#include <algorithm>
#include <vector>

#include "backends/cpu_common.h"
#include "model/ops.h"

namespace fa2b::model {

void linear_forward(const float* x, std::int64_t n, std::int64_t in, const float* w, const float* b,
                    std::int64_t out, float* y, bool add) {
  cpu::parallel_for(cpu::thread_count(), n, [&](int, std::int64_t r) {
    float* yr = y + r * out;
    if (!add) std::fill(yr, yr + out, 0.0f);
    if (b != nullptr)
      for (std::int64_t o = 0; o < out; ++o) yr[o] += b[o];
    const float* xr = x + r * in;
    for (std::int64_t i = 0; i < in; ++i) {
      const float xi = xr[i];
      const float* wi = w + i * out;
      for (std::int64_t o = 0; o < out; ++o) yr[o] += xi * wi[o];
    }
  });
}

void linear_backward(const float* x, const float* dy, std::int64_t n, std::int64_t in,
                     std::int64_t out, const float* w, float* dx, float* dw, float* db) {
  const int threads = cpu::thread_count();
  if (dx != nullptr) {
    cpu::parallel_for(threads, n, [&](int, std::int64_t r) {
      const float* dyr = dy + r * out;
      for (std::int64_t i = 0; i < in; ++i) {
        const float* wi = w + i * out;
        float s = 0.0f;
        for (std::int64_t o = 0; o < out; ++o) s += dyr[o] * wi[o];
        dx[r * in + i] = s;
      }
    });
  }
  // dw row i = sum over tokens of x[r, i] * dy[r, :]; one row per work item, no races.
  cpu::parallel_for(threads, in, [&](int, std::int64_t i) {
    float* dwi = dw + i * out;
    std::fill(dwi, dwi + out, 0.0f);
    for (std::int64_t r = 0; r < n; ++r) {
      const float xi = x[r * in + i];
      const float* dyr = dy + r * out;
      for (std::int64_t o = 0; o < out; ++o) dwi[o] += xi * dyr[o];
    }
  });
  if (db != nullptr) {
    std::fill(db, db + out, 0.0f);
    for (std::int64_t r = 0; r < n; ++r)
      for (std::int64_t o = 0; o < out; ++o) db[o] += dy[r * out + o];
  }
}

}  // namespace fa2b::model
