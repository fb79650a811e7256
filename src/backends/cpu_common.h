// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the CPU-target backends (cpu-naive, cpu-flash): element access in the
// storage dtype, an OpenMP parallel_for, and the two float32 micro-kernels
// (S = scale * Q K^T tile, O += P V tile) both backends are built from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "backends/backend.h"
#include "common/attn_mask.h"
#include "common/attn_params.h"
#include "common/numeric.h"
#include "core/case.h"

namespace fa2b::cpu {

// Threads the CPU backends use: FA2BENCH_CPU_THREADS, else hardware_concurrency; 1 in a
// build without OpenMP.
int thread_count();

// Runs body(thread, item) for every item in [0, n) on an OpenMP team of min(threads, n)
// threads (inline when that is 1, or when the build has no OpenMP). Items are handed out one
// at a time (schedule(dynamic, 1)), because causal tiles differ widely in cost; `thread` in
// [0, threads) is the OpenMP thread number and indexes per-thread scratch. Each item runs on
// one thread, so results do not depend on the thread count. The first exception a body
// throws is rethrown here after the team finishes (later items are skipped).
void parallel_for(int threads, std::int64_t n,
                  const std::function<void(int thread, std::int64_t item)>& body);

// What both CPU backends accept: any dtype, D >= 1, T >= 1, H a multiple of H_kv, any window.
// The visible keys of a row come from common/attn_mask.h (first_visible_key, last_visible_key),
// the rule the GPU kernels and the float64 reference share.
Support check_case(const Case& c);

inline std::size_t storage_bytes(KernelDType dt) {
  return dt == KernelDType::fp32 ? 4 : 2;
}

// x rounded (RNE) to the storage dtype, returned as float: what a GPU would store.
inline float round_to(float x, KernelDType dt) {
  switch (dt) {
    case KernelDType::fp16:
      return fp16_to_float(float_to_fp16(x));
    case KernelDType::bf16:
      return bf16_to_float(float_to_bf16(x));
    case KernelDType::fp32:
      return x;
  }
  return x;
}

// fp16_to_float without branches (vectorisable); bit-identical to numeric.h's.
float fp16_to_float_fast(std::uint16_t h);

// n consecutive elements of a tensor in storage dtype, starting at element `offset`, to float.
void load_row(const void* base, std::int64_t offset, int n, KernelDType dt, float* dst);
// n floats stored (RNE) to consecutive elements of a tensor at element `offset`.
void store_row(void* base, std::int64_t offset, int n, KernelDType dt, const float* src);

// Element offsets of row t of (b, h) in each tensor; kv heads come from the query head by
// grouped-query mapping (h / (H / H_kv)).
inline int kv_head(const AttnParams& p, int h) {
  return h / (p.H / p.H_kv);
}
inline std::int64_t q_offset(const AttnParams& p, int b, int h, std::int64_t t) {
  return b * p.q_batch_stride + h * p.q_head_stride + t * p.q_row_stride;
}
// A paged KV cache gathers each key row through the page table: row t of sequence b is row
// t % page_size of its physical page (the batch strides are then page strides).
inline std::int64_t kv_block(const AttnParams& p, int b, std::int64_t t) {
  if (p.block_table == nullptr) return b;
  return p.block_table[static_cast<std::int64_t>(b) * p.pages_per_seq + t / p.page_size];
}
inline std::int64_t kv_row(const AttnParams& p, std::int64_t t) {
  return p.block_table == nullptr ? t : t % p.page_size;
}
inline std::int64_t k_offset(const AttnParams& p, int b, int hk, std::int64_t t) {
  return kv_block(p, b, t) * p.k_batch_stride + hk * p.k_head_stride +
         kv_row(p, t) * p.k_row_stride;
}
inline std::int64_t v_offset(const AttnParams& p, int b, int hk, std::int64_t t) {
  return kv_block(p, b, t) * p.v_batch_stride + hk * p.v_head_stride +
         kv_row(p, t) * p.v_row_stride;
}
inline std::int64_t o_offset(const AttnParams& p, int b, int h, std::int64_t t) {
  return b * p.o_batch_stride + h * p.o_head_stride + t * p.o_row_stride;
}

// s[i * s_ld + j] = scale * dot(q row i, k row j) for i < rows, j < keys; q and k are float
// row-major with D contiguous. Register-blocked 2x2 with 8 independent lanes per dot product,
// so the compiler vectorises it without reassociating (no -ffast-math needed).
void scores_tile(const float* q, std::int64_t q_ld, int rows, const float* k, std::int64_t k_ld,
                 int keys, int D, float scale, float* s, std::int64_t s_ld);

// o[i * o_ld + d] += sum_j p[i * p_ld + j] * v[j * v_ld + d]: axpy over contiguous D,
// blocked 2 rows x 4 keys so each loaded V vector feeds two rows.
void accumulate_pv(const float* p, std::int64_t p_ld, int rows, const float* v, std::int64_t v_ld,
                   int keys, int D, float* o, std::int64_t o_ld);

}  // namespace fa2b::cpu
