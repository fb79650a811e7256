// SPDX-License-Identifier: Apache-2.0
// Variable-length batches on the CPU target: cpu-naive and cpu-flash, padded and packed, against
// the float64 reference on every real row (lengths 0, 1 and 17 among them), with a poisoned
// output whose guard past the end must stay untouched, and a control that runs the backends on
// shifted sequence offsets and must fail the same comparison.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "backends/cpu_backends.h"
#include "backends/shape_params.h"
#include "common/numeric.h"
#include "core/seq_lengths.h"
#include "core/shape_algebra.h"
#include "dtype_values.h"
#include "small_cases.h"
#include "verify/reference.h"

namespace fa2b {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr std::int64_t kGuardElems = 4096;  // poisoned elements after O's end

Case varlen_case(std::vector<std::int64_t> lengths, Packing packing, std::int64_t H,
                 std::int64_t H_kv, std::int64_t D, DType dt, bool causal) {
  Case c;
  c.backend = "cpu-flash";
  c.lengths = std::move(lengths);
  c.B = static_cast<std::int64_t>(c.lengths.size());
  c.T_q = c.T_k = *std::max_element(c.lengths.begin(), c.lengths.end());
  c.packing = packing;
  c.layout = packing == Packing::packed ? Layout::bshd : Layout::bhsd;
  c.H = H;
  c.H_kv = H_kv;
  c.D = D;
  c.dtype = dt;
  c.causal = causal;
  return c;
}

using test_values::get;
using test_values::put;

// The runner's tensors of a varlen case (core/seq_lengths.h's TokenLayout): inputs filled at
// their logical index, O and LSE poisoned, O followed by a poisoned guard.
struct VarlenTensors {
  TokenLayout ql, kl;
  Strides sq{}, skv{};
  std::vector<std::uint8_t> q, k, v, o;
  std::vector<float> lse;
  AttnParams p;

  explicit VarlenTensors(const Case& c) : ql(query_layout(c)), kl(key_layout(c)) {
    const std::int64_t eb = dtype_bytes(c.dtype);
    sq = tensor_strides(c.layout, c.H, ql.rows, c.D);
    skv = tensor_strides(c.layout, c.H_kv, kl.rows, c.D);
    const std::int64_t q_elems = ql.batches * c.H * ql.rows * c.D;
    const std::int64_t kv_elems = kl.batches * c.H_kv * kl.rows * c.D;
    q.resize(static_cast<std::size_t>(q_elems * eb));
    o.resize(static_cast<std::size_t>((q_elems + kGuardElems) * eb));
    k.resize(static_cast<std::size_t>(kv_elems * eb));
    v.resize(k.size());
    lse.assign(static_cast<std::size_t>(ql.batches * ql.rows * c.H), kNaN);
    for (std::int64_t i = 0; i < q_elems + kGuardElems; ++i) put(c.dtype, o, i, kNaN);
    fill(c, 1, q, sq, ql, c.H);
    fill(c, 2, k, skv, kl, c.H_kv);
    fill(c, 3, v, skv, kl, c.H_kv);
    p = shape_params(c);
    p.q = q.data();
    p.k = k.data();
    p.v = v.data();
    p.o = o.data();
    p.lse = lse.data();
  }

  // Every stored row, a padded batch's padding included: what the runner's fill writes (a
  // packed batch's rows are all real tokens, placed by the layout).
  static void fill(const Case& c, int tensor, std::vector<std::uint8_t>& buf, const Strides& s,
                   const TokenLayout& l, std::int64_t heads) {
    const bool packed = !l.offsets.empty();
    for (std::int64_t b = 0; b < c.B; ++b)
      for (std::int64_t h = 0; h < heads; ++h)
        for (std::int64_t t = 0; t < (packed ? c.lengths[b] : l.rows); ++t)
          for (std::int64_t d = 0; d < c.D; ++d)
            put(c.dtype, buf, l.batch_of(b) * s.b + h * s.h + l.row_of(b, t) * s.t + d,
                stored_input(c, l, tensor, b, h, t, d));
  }

  // O of token i of sequence b, head h.
  float out(const Case& c, std::int64_t b, std::int64_t h, std::int64_t i, std::int64_t d) const {
    return get(c.dtype, o, ql.batch_of(b) * sq.b + h * sq.h + ql.row_of(b, i) * sq.t + d);
  }
  // Its LSE: [H, total] packed (flash-attention's varlen layout), [B, H, T] padded.
  float lse_of(const Case& c, std::int64_t b, std::int64_t h, std::int64_t i) const {
    if (!ql.offsets.empty()) return lse[static_cast<std::size_t>(h * ql.rows + ql.row_of(b, i))];
    return lse[static_cast<std::size_t>((b * c.H + h) * c.T_q + i)];
  }
};

// Runs `backend` prepared for `shape` (whose offsets may differ from c's) on c's tensors and
// returns the max abs error over every real row of c; checks the output's finiteness, the guard
// and the LSE on the way when `strict`.
double run_and_compare(const std::string& backend, const Case& c, const Case& shape, bool strict) {
  SCOPED_TRACE(backend + " " + c.shape_key());
  auto be = backend == "cpu-naive" ? make_cpu_naive_backend() : make_cpu_flash_backend();
  VarlenTensors t(c);
  HostMemoryTracker tracker;
  be->prepare(shape, t.p, tracker);
  EXPECT_EQ(tracker.current_bytes() > 0, true);
  be->run(t.p, nullptr);
  be->release();
  EXPECT_EQ(tracker.current_bytes(), 0);

  std::vector<RowRef> rows = sample_rows(c, 1 << 20, 7);
  std::vector<double> ref, ref_lse;
  reference_rows(c, rows, ref, ref_lse);
  std::vector<float> got;
  for (const RowRef& r : rows)
    for (std::int64_t d = 0; d < c.D; ++d) got.push_back(t.out(c, r.b, r.h, r.i, d));
  const Accuracy acc = compare_rows(c, rows, ref, got);
  if (!strict) return acc.max_abs_err;

  EXPECT_EQ(static_cast<std::int64_t>(rows.size()), total_tokens(c) * c.H);
  const std::int64_t q_elems = t.ql.batches * c.H * t.ql.rows * c.D;
  std::int64_t nonfinite = 0, guard_written = 0;
  for (std::int64_t i = 0; i < q_elems; ++i) nonfinite += !std::isfinite(get(c.dtype, t.o, i));
  for (std::int64_t i = q_elems; i < q_elems + kGuardElems; ++i)
    guard_written += !std::isnan(get(c.dtype, t.o, i));
  EXPECT_EQ(nonfinite, 0) << "the whole output is written (a padded batch's padding too)";
  EXPECT_EQ(guard_written, 0) << "nothing is written past the output";
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const RowRef& row = rows[r];
    const float have = t.lse_of(c, row.b, row.h, row.i);
    EXPECT_NEAR(have, ref_lse[r], 1e-3 * std::max(1.0, std::abs(ref_lse[r])))
        << "sequence " << row.b << " head " << row.h << " row " << row.i;
  }
  return acc.max_abs_err;
}

const std::vector<std::int64_t> kLengths = {17, 0, 1, 70, 0, 33};

TEST(CpuVarlen, EveryRealRowMatchesTheReference) {
  for (Packing packing : {Packing::padded, Packing::packed})
    for (bool causal : {false, true})
      for (DType dt : {DType::fp32, DType::bf16, DType::fp16}) {
        // Grouped-query heads in one dtype keep the test short at -O0.
        const std::int64_t H_kv = dt == DType::bf16 ? 2 : 4;
        const Case c = varlen_case(kLengths, packing, 4, H_kv, 40, dt, causal);
        for (const char* backend : {"cpu-naive", "cpu-flash"})
          EXPECT_LE(run_and_compare(backend, c, c, true), test_cases::output_tolerance(dt))
              << backend;
      }
}

TEST(CpuVarlen, WindowsApplyPerSequence) {
  for (Packing packing : {Packing::padded, Packing::packed}) {
    Case c = varlen_case({17, 1, 0, 70}, packing, 2, 1, 16, DType::fp32, false);
    for (SlidingWindow w : {SlidingWindow{3, -1}, SlidingWindow{0, 0}, SlidingWindow{16, 16}}) {
      c.window = w;
      for (const char* backend : {"cpu-naive", "cpu-flash"})
        EXPECT_LE(run_and_compare(backend, c, c, true), 1e-5) << backend;
    }
  }
}

TEST(CpuVarlen, ShiftedOffsetsFailTheComparison) {
  // The same tokens cut at other places (17 -> 16, 70 -> 71): a backend that reads the wrong
  // offsets must not pass.
  std::vector<std::int64_t> shifted = kLengths;
  shifted[0] -= 1;
  shifted[3] += 1;  // 70 -> 71
  for (Packing packing : {Packing::padded, Packing::packed}) {
    const Case c = varlen_case(kLengths, packing, 2, 2, 32, DType::fp32, true);
    Case wrong = varlen_case(shifted, packing, 2, 2, 32, DType::fp32, true);
    wrong.T_q = wrong.T_k = c.T_q;  // same buffers
    for (const char* backend : {"cpu-naive", "cpu-flash"}) {
      EXPECT_LE(run_and_compare(backend, c, c, false), 1e-5) << backend;
      EXPECT_GT(run_and_compare(backend, c, wrong, false), 1e-2) << backend;
    }
  }
}

TEST(CpuVarlen, ArraysAreTrackedAsPredicted) {
  for (Packing packing : {Packing::padded, Packing::packed}) {
    const Case c = varlen_case(kLengths, packing, 2, 2, 32, DType::fp32, false);
    VarlenTensors t(c);
    HostMemoryTracker tracker;
    Case naive = c;
    naive.backend = "cpu-naive";
    auto be = make_cpu_naive_backend();
    be->prepare(naive, t.p, tracker);
    // S (float32) and P of the padded shape, plus the arrays; nothing else.
    const std::int64_t scores = c.B * c.H * c.T_q * c.T_k * (4 + 4);
    EXPECT_EQ(tracker.current_bytes(), scores + varlen_arrays_bytes(naive));
    EXPECT_EQ(varlen_arrays_bytes(naive), packing == Packing::packed ? 2 * 7 * 4 : 6 * 4);
    be->release();
  }
}

// A packed batch's params carry its token totals (the Hopper kernels size their copy-engine
// maps by them on the host); padded and dense batches carry none.
TEST(CpuVarlen, PackedParamsCarryTheTokenTotals) {
  std::int64_t tokens = 0;
  for (const std::int64_t n : kLengths) tokens += n;
  const AttnParams packed =
      shape_params(varlen_case(kLengths, Packing::packed, 2, 1, 32, DType::bf16, true));
  EXPECT_EQ(packed.total_q, tokens);
  EXPECT_EQ(packed.total_k, tokens);
  EXPECT_EQ(packed.q_batch_stride, 0);
  const AttnParams padded =
      shape_params(varlen_case(kLengths, Packing::padded, 2, 1, 32, DType::bf16, true));
  EXPECT_EQ(padded.total_q, 0);
  EXPECT_EQ(padded.total_k, 0);
}

}  // namespace
}  // namespace fa2b
