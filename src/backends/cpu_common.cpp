// SPDX-License-Identifier: Apache-2.0
#include "backends/cpu_common.h"

#include <fmt/format.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <vector>

#include "runtime/device_info.h"

// The build targets baseline x86-64 (SSE2). The hot loops also get an AVX2+FMA clone that
// the loader picks at startup when the CPU has it (GCC function multiversioning); elsewhere
// (other compilers, other architectures) the plain version is all there is.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define FA2B_SIMD_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define FA2B_SIMD_CLONES
#endif

namespace fa2b::cpu {

// One source of truth with what the runner reports as the CPU target's thread count.
int thread_count() {
  return cpu_threads();
}

void parallel_for(int threads, std::int64_t n,
                  const std::function<void(int thread, std::int64_t item)>& body) {
  if (n <= 0) return;
  const int used = static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(threads, n)));
#ifdef _OPENMP
  if (used > 1) {
    // An exception must not leave the parallel region (that would terminate): the first one
    // is kept, the remaining items are skipped, and it is rethrown on the calling thread.
    std::exception_ptr error;
    std::atomic<bool> failed{false};
#pragma omp parallel for num_threads(used) schedule(dynamic, 1)
    for (std::int64_t i = 0; i < n; ++i) {
      if (failed.load(std::memory_order_relaxed)) continue;
      try {
        body(omp_get_thread_num(), i);
      } catch (...) {
#pragma omp critical(fa2b_cpu_parallel_for_error)
        {
          if (!error) error = std::current_exception();
        }
        failed.store(true, std::memory_order_relaxed);
      }
    }
    if (error) std::rethrow_exception(error);
    return;
  }
#endif
  for (std::int64_t i = 0; i < n; ++i) body(0, i);
}

Support check_case(const Case& c) {
  if (c.B < 1 || c.H < 1 || c.H_kv < 1 || c.T_q < 1 || c.T_k < 1 || c.D < 1) {
    return Support::no("B, H, H_kv, T_q, T_k and D must all be at least 1");
  }
  if (c.H % c.H_kv != 0) {
    return Support::no(fmt::format("H ({}) is not a multiple of H_kv ({})", c.H, c.H_kv));
  }
  // AttnParams holds B, H, T and D as int.
  constexpr std::int64_t kIntMax = 0x7fffffff;
  if (c.B > kIntMax || c.H > kIntMax || c.T_q > kIntMax || c.T_k > kIntMax || c.D > kIntMax ||
      c.Dv() > kIntMax) {
    return Support::no("a dimension does not fit in int");
  }
  return Support::yes();
}

namespace {
// GCC vector-extension types: eight lanes, one AVX register or two SSE ones. Explicit vector
// code keeps values in registers where the auto-vectoriser would give up or spill.
constexpr int kLanes = 8;
typedef float f8 __attribute__((vector_size(kLanes * sizeof(float))));
typedef std::uint32_t u8v __attribute__((vector_size(kLanes * sizeof(std::uint32_t))));
}  // namespace

float fp16_to_float_fast(std::uint16_t h) {
  // Shift magnitude bits into float position and rescale by 2^112 (exponent bias 127 - 15):
  // exact for normals and subnormals alike (the product is exact, no FTZ/DAZ in our flags).
  // Inf/NaN (exponent 31) get the float exponent 255 instead. Branch-free, so the load loop
  // vectorises; identical to fp16_to_float for all 65536 inputs (tested).
  const std::uint32_t mag = static_cast<std::uint32_t>(h & 0x7fffu) << 13;
  const float scaled = bits_float(mag) * 0x1p112f;
  const std::uint32_t special = (h & 0x7c00u) == 0x7c00u ? (mag | 0x7f800000u) : float_bits(scaled);
  return bits_float((static_cast<std::uint32_t>(h & 0x8000u) << 16) | special);
}

FA2B_SIMD_CLONES void load_row(const void* base, std::int64_t offset, int n, KernelDType dt,
                               float* dst) {
  switch (dt) {
    case KernelDType::fp16: {
      // fp16_to_float_fast on eight lanes at a time (same bit operations, vector casts are
      // bit casts), then the scalar version for the tail.
      const auto* src = static_cast<const std::uint16_t*>(base) + offset;
      int i = 0;
      for (; i + kLanes <= n; i += kLanes) {
        u8v h;
        for (int l = 0; l < kLanes; ++l) h[l] = src[i + l];
        const u8v mag = (h & 0x7fffu) << 13;
        const u8v scaled = (u8v)((f8)mag * 0x1p112f);
        const u8v special = (u8v)((h & 0x7c00u) == 0x7c00u);
        const u8v bits =
            (scaled & ~special) | ((mag | 0x7f800000u) & special) | ((h & 0x8000u) << 16);
        std::memcpy(dst + i, &bits, sizeof bits);
      }
      for (; i < n; ++i) dst[i] = fp16_to_float_fast(src[i]);
      return;
    }
    case KernelDType::bf16: {
      const auto* src = static_cast<const std::uint16_t*>(base) + offset;
      for (int i = 0; i < n; ++i) dst[i] = bf16_to_float(src[i]);
      return;
    }
    case KernelDType::fp32: {
      const auto* src = static_cast<const float*>(base) + offset;
      std::copy(src, src + n, dst);
      return;
    }
  }
}

void store_row(void* base, std::int64_t offset, int n, KernelDType dt, const float* src) {
  switch (dt) {
    case KernelDType::fp16: {
      auto* dst = static_cast<std::uint16_t*>(base) + offset;
      for (int i = 0; i < n; ++i) dst[i] = float_to_fp16(src[i]);
      return;
    }
    case KernelDType::bf16: {
      auto* dst = static_cast<std::uint16_t*>(base) + offset;
      for (int i = 0; i < n; ++i) dst[i] = float_to_bf16(src[i]);
      return;
    }
    case KernelDType::fp32: {
      auto* dst = static_cast<float*>(base) + offset;
      std::copy(src, src + n, dst);
      return;
    }
  }
}

namespace {

// Eight independent partial sums per dot product, held in an f8 (one AVX register or two SSE
// ones). Explicit vector locals keep the accumulators in registers
// (plain float arrays get spilled to the stack); no -ffast-math reassociation is needed.

// An R x C block of scaled dot products. With R and C compile-time constants the r/c loops are
// fully unrolled and every accumulator is a register.
template <int R, int C>
inline void dot_block(const float* q, std::int64_t q_ld, const float* k, std::int64_t k_ld, int D,
                      float scale, float* s, std::int64_t s_ld) {
  f8 acc[R][C];
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) acc[r][c] = f8{};
  const int dv = D - D % kLanes;
  for (int d = 0; d < dv; d += kLanes) {
    f8 qv[R], kv[C];
    for (int r = 0; r < R; ++r) std::memcpy(&qv[r], q + r * q_ld + d, sizeof(f8));
    for (int c = 0; c < C; ++c) std::memcpy(&kv[c], k + c * k_ld + d, sizeof(f8));
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < C; ++c) acc[r][c] += qv[r] * kv[c];
  }
  for (int r = 0; r < R; ++r) {
    for (int c = 0; c < C; ++c) {
      float sum = 0.0f;
      for (int l = 0; l < kLanes; ++l) sum += acc[r][c][l];
      for (int d = dv; d < D; ++d) sum += q[r * q_ld + d] * k[c * k_ld + d];
      s[r * s_ld + c] = scale * sum;
    }
  }
}

template <int R>
inline void dot_rows(const float* q, std::int64_t q_ld, const float* k, std::int64_t k_ld, int keys,
                     int D, float scale, float* s, std::int64_t s_ld) {
  int j = 0;
  for (; j + 2 <= keys; j += 2) dot_block<R, 2>(q, q_ld, k + j * k_ld, k_ld, D, scale, s + j, s_ld);
  if (j < keys) dot_block<R, 1>(q, q_ld, k + j * k_ld, k_ld, D, scale, s + j, s_ld);
}

}  // namespace

FA2B_SIMD_CLONES void scores_tile(const float* q, std::int64_t q_ld, int rows, const float* k,
                                  std::int64_t k_ld, int keys, int D, float scale, float* s,
                                  std::int64_t s_ld) {
  int i = 0;
  for (; i + 2 <= rows; i += 2) {
    dot_rows<2>(q + i * q_ld, q_ld, k, k_ld, keys, D, scale, s + i * s_ld, s_ld);
  }
  if (i < rows) dot_rows<1>(q + i * q_ld, q_ld, k, k_ld, keys, D, scale, s + i * s_ld, s_ld);
}

FA2B_SIMD_CLONES void accumulate_pv(const float* p, std::int64_t p_ld, int rows, const float* v,
                                    std::int64_t v_ld, int keys, int D, float* o,
                                    std::int64_t o_ld) {
  int i = 0;
  // Two output rows at a time share every V load.
  for (; i + 2 <= rows; i += 2) {
    float* __restrict__ o0 = o + i * o_ld;
    float* __restrict__ o1 = o0 + o_ld;
    const float* p0 = p + i * p_ld;
    const float* p1 = p0 + p_ld;
    int j = 0;
    for (; j + 4 <= keys; j += 4) {
      const float* __restrict__ v0 = v + j * v_ld;
      const float* __restrict__ v1 = v0 + v_ld;
      const float* __restrict__ v2 = v1 + v_ld;
      const float* __restrict__ v3 = v2 + v_ld;
      const float a0 = p0[j], a1 = p0[j + 1], a2 = p0[j + 2], a3 = p0[j + 3];
      const float b0 = p1[j], b1 = p1[j + 1], b2 = p1[j + 2], b3 = p1[j + 3];
      for (int d = 0; d < D; ++d) {
        o0[d] += a0 * v0[d] + a1 * v1[d] + a2 * v2[d] + a3 * v3[d];
        o1[d] += b0 * v0[d] + b1 * v1[d] + b2 * v2[d] + b3 * v3[d];
      }
    }
    for (; j < keys; ++j) {
      const float* __restrict__ vj = v + j * v_ld;
      const float a = p0[j], b = p1[j];
      for (int d = 0; d < D; ++d) {
        o0[d] += a * vj[d];
        o1[d] += b * vj[d];
      }
    }
  }
  if (i < rows) {
    float* __restrict__ o0 = o + i * o_ld;
    const float* p0 = p + i * p_ld;
    int j = 0;
    for (; j + 4 <= keys; j += 4) {
      const float* __restrict__ v0 = v + j * v_ld;
      const float* __restrict__ v1 = v0 + v_ld;
      const float* __restrict__ v2 = v1 + v_ld;
      const float* __restrict__ v3 = v2 + v_ld;
      const float a0 = p0[j], a1 = p0[j + 1], a2 = p0[j + 2], a3 = p0[j + 3];
      for (int d = 0; d < D; ++d) o0[d] += a0 * v0[d] + a1 * v1[d] + a2 * v2[d] + a3 * v3[d];
    }
    for (; j < keys; ++j) {
      const float* __restrict__ vj = v + j * v_ld;
      const float a = p0[j];
      for (int d = 0; d < D; ++d) o0[d] += a * vj[d];
    }
  }
}

}  // namespace fa2b::cpu
