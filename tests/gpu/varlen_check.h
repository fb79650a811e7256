// SPDX-License-Identifier: Apache-2.0
// The variable-length kernel check shared by the GPU tests of every backend that runs varlen
// batches (fa2, naive, fa3): the batch (lengths 0, 1, 17, 1000 and 4097), a run of a kernel on
// tensors filled as the runner fills them with O and LSE poisoned, the comparison of sampled
// real rows with the float64 reference, and the shifted-offsets control that must fail it.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "backends/shape_params.h"
#include "common/device_utils.h"
#include "common/numeric.h"
#include "core/seq_lengths.h"
#include "core/shape_algebra.h"
#include "dev_buf.h"
#include "fwd_kernel_check.h"

namespace fa2b {
namespace varlen_check {

// The batch's lengths. Under FA2BENCH_TEST_MAX_T (scripts/sanitize.sh's racecheck) the 4097
// goes: its paths are those of 1000 and 17 at 16x the shared-memory traffic. The controls
// (shifted()) change lengths 0 and 2, which stay.
inline std::vector<std::int64_t> test_lengths() {
  std::vector<std::int64_t> out;
  for (std::int64_t n : {17, 0, 1000, 1, 4097}) {
    if (n <= fwd_check::max_test_length()) out.push_back(n);
  }
  return out;
}
constexpr std::int64_t kGuardBytes = 1 << 16;  // poisoned bytes after O's end

inline Case varlen_case(Packing packing, DType dt, int D, bool causal, std::int64_t H_kv,
                        const char* backend = "fa2") {
  Case c;
  c.backend = c.role = backend;
  c.lengths = test_lengths();
  c.B = static_cast<std::int64_t>(c.lengths.size());
  c.T_q = c.T_k = *std::max_element(c.lengths.begin(), c.lengths.end());
  c.packing = packing;
  c.layout = packing == Packing::packed ? Layout::bshd : Layout::bhsd;
  c.H = 4;
  c.H_kv = H_kv;
  c.D = D;
  c.dtype = dt;
  c.causal = causal;
  c.measure.seed = 77 + static_cast<std::uint64_t>(D);
  return c;
}

struct Outcome {
  double max_abs_err = 0, rel_l2_err = 0, lse_err = 0;
  std::int64_t nonfinite = -1, guard_written = -1;
  std::int64_t lse_bytes_written = -1;  // bytes of the poisoned LSE the kernel changed
};

// Runs `kernel` on c's tensors (filled as the runner fills them) with the varlen arrays of
// `arrays_from` (c itself, or a control with shifted lengths) and compares every sampled real
// row of c with the float64 reference; their LSE too unless `check_lse` is false (a kernel that
// keeps its packed LSE elsewhere: cudnn).
template <typename Kernel>
Outcome run_varlen(Kernel kernel, const Case& c, const Case& arrays_from, bool check_lse = true) {
  Outcome out;
  const KernelDType kdt = c.dtype == DType::bf16 ? KernelDType::bf16 : KernelDType::fp16;
  const TokenLayout ql = query_layout(c), kl = key_layout(c);
  const Strides sq = tensor_strides(c.layout, c.H, ql.rows, c.D);
  const Strides skv = tensor_strides(c.layout, c.H_kv, kl.rows, c.D);
  const std::int64_t q_elems = ql.batches * c.H * ql.rows * c.D;
  const std::int64_t kv_elems = kl.batches * c.H_kv * kl.rows * c.D;
  const std::int64_t lse_elems = ql.batches * ql.rows * c.H;
  DevBuf q(q_elems * 2), k(kv_elems * 2), v(kv_elems * 2), o(q_elems * 2 + kGuardBytes),
      lse(lse_elems * sizeof(float)), arrays(4 * (2 * c.B + 2));
  EXPECT_TRUE(q.ptr && k.ptr && v.ptr && o.ptr && lse.ptr && arrays.ptr);
  const std::uint64_t seed = c.measure.seed;
  const auto fill = [&](void* ptr, const TokenLayout& l, std::int64_t heads, const Strides& s,
                        InputTensor which) {
    EXPECT_EQ(fill_inputs(ptr, kdt, static_cast<int>(l.batches), static_cast<int>(heads),
                          static_cast<int>(l.rows), static_cast<int>(c.D), s.b, s.h, s.t, seed,
                          which, KernelInputDist::normal, nullptr),
              cudaSuccess);
  };
  fill(q.ptr, ql, c.H, sq, InputTensor::q);
  fill(k.ptr, kl, c.H_kv, skv, InputTensor::k);
  fill(v.ptr, kl, c.H_kv, skv, InputTensor::v);
  EXPECT_EQ(cudaMemset(o.ptr, 0xFF, q_elems * 2 + kGuardBytes), cudaSuccess);
  EXPECT_EQ(cudaMemset(lse.ptr, 0xFF, lse_elems * sizeof(float)), cudaSuccess);

  AttnParams p = shape_params(c);
  p.q = q.ptr;
  p.k = k.ptr;
  p.v = v.ptr;
  p.o = o.ptr;
  p.lse = static_cast<float*>(lse.ptr);
  std::vector<int> host;
  if (c.packing == Packing::packed) {
    for (const std::int64_t off : sequence_offsets(arrays_from))
      host.push_back(static_cast<int>(off));
    const std::size_t n = host.size();
    for (std::size_t i = 0; i < n; ++i) host.push_back(host[i]);
    p.cu_seqlens_q = static_cast<const int*>(arrays.ptr);
    p.cu_seqlens_k = p.cu_seqlens_q + c.B + 1;
  } else {
    for (const std::int64_t n : arrays_from.lengths) host.push_back(static_cast<int>(n));
    p.seqused = static_cast<const int*>(arrays.ptr);
  }
  EXPECT_EQ(cudaMemcpy(arrays.ptr, host.data(), host.size() * 4, cudaMemcpyHostToDevice),
            cudaSuccess);
  EXPECT_EQ(kernel(p), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  EXPECT_EQ(count_nonfinite(o.ptr, kdt, q_elems, &out.nonfinite, nullptr), cudaSuccess);
  std::vector<std::uint8_t> guard(kGuardBytes);
  EXPECT_EQ(cudaMemcpy(guard.data(), static_cast<const std::uint8_t*>(o.ptr) + q_elems * 2,
                       kGuardBytes, cudaMemcpyDeviceToHost),
            cudaSuccess);
  out.guard_written =
      std::count_if(guard.begin(), guard.end(), [](std::uint8_t x) { return x != 0xFF; });
  std::vector<std::uint8_t> lse_bytes(static_cast<std::size_t>(lse_elems) * sizeof(float));
  EXPECT_EQ(cudaMemcpy(lse_bytes.data(), lse.ptr, lse_bytes.size(), cudaMemcpyDeviceToHost),
            cudaSuccess);
  out.lse_bytes_written =
      std::count_if(lse_bytes.begin(), lse_bytes.end(), [](std::uint8_t x) { return x != 0xFF; });

  const std::vector<RowRef> rows = sample_rows(c, 192, seed);
  std::vector<double> ref, ref_lse;
  reference_rows(c, rows, ref, ref_lse);
  std::vector<std::uint16_t> raw(static_cast<std::size_t>(c.D));
  std::vector<float> got;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const RowRef& row = rows[r];
    const std::int64_t off =
        ql.batch_of(row.b) * sq.b + row.h * sq.h + ql.row_of(row.b, row.i) * sq.t;
    EXPECT_EQ(cudaMemcpy(raw.data(), static_cast<const std::uint16_t*>(o.ptr) + off, c.D * 2,
                         cudaMemcpyDeviceToHost),
              cudaSuccess);
    for (std::int64_t d = 0; d < c.D; ++d)
      got.push_back(c.dtype == DType::bf16 ? bf16_to_float(raw[d]) : fp16_to_float(raw[d]));
    if (!check_lse) continue;
    // LSE: [H, total] packed (flash-attention's varlen layout), [B, H, T] padded.
    const std::int64_t loff = c.packing == Packing::packed
                                  ? row.h * ql.rows + ql.row_of(row.b, row.i)
                                  : (row.b * c.H + row.h) * c.T_q + row.i;
    float have = 0;
    EXPECT_EQ(
        cudaMemcpy(&have, static_cast<const float*>(lse.ptr) + loff, 4, cudaMemcpyDeviceToHost),
        cudaSuccess);
    out.lse_err =
        std::max(out.lse_err, std::isfinite(have) ? std::abs(have - ref_lse[r])
                                                  : std::numeric_limits<double>::infinity());
  }
  const Accuracy a = compare_rows(c, rows, ref, got);
  out.max_abs_err = a.max_abs_err;
  out.rel_l2_err = a.rel_l2_err;
  return out;
}

inline void expect_matches(const Outcome& r, DType dt) {
  EXPECT_EQ(r.nonfinite, 0) << "O has unwritten or non-finite elements";
  EXPECT_EQ(r.guard_written, 0) << "bytes written past O's end";
  EXPECT_LE(r.max_abs_err, fwd_check::max_abs_tol(dt));
  EXPECT_LE(r.rel_l2_err, fwd_check::rel_l2_tol(dt));
  EXPECT_LE(r.lse_err, 1e-2);
}

// The control's lengths. Packed: 17 | 1000 cut one token later (18 | 999), same tokens, same
// buffers, so every row of the later sequences reads its neighbour's tokens. Padded: a one-token
// shift of a causal sequence changes no real row (each row sees keys 0..i at either length), so
// the first sequence shrinks to one token instead: its rows 1..16 then see key 0 alone.
inline Case shifted(const Case& c) {
  Case s = c;
  if (c.packing == Packing::packed) {
    s.lengths[0] += 1;
    s.lengths[2] -= 1;
  } else {
    s.lengths[0] = 1;
  }
  return s;
}

}  // namespace varlen_check
}  // namespace fa2b
