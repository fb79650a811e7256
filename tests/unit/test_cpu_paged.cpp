// SPDX-License-Identifier: Apache-2.0
// A paged KV cache on the CPU target: cpu-naive and cpu-flash read K and V through the page
// table and give the contiguous run's output bit for bit, on odd shapes (T_k 1, 17, 1000 with
// pages of 16 and 256, decode T_q 1 and 4, GQA, bshd and bhsd, causal and not); the rows past
// T_k in a sequence's last page are NaN, so reading one would show. A control with two page
// table entries swapped must fail the accuracy check. Through the runner: the same accuracy as
// the contiguous case, the tracked peak equal to the prediction, training modes unsupported.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "backends/cpu_backends.h"
#include "backends/shape_params.h"
#include "core/paged_kv.h"
#include "core/shape_algebra.h"
#include "runner/case_runner.h"
#include "runner/paged_staging.h"
#include "runner/platform.h"
#include "verify/reference.h"

namespace fa2b {
namespace {

Case paged_case(const std::string& backend, std::int64_t T_q, std::int64_t T_k,
                std::int64_t page_size, Layout layout, bool causal) {
  Case c;
  c.backend = c.role = backend;
  c.B = 2;
  c.H = 4;
  c.H_kv = 2;
  c.T_q = T_q;
  c.T_k = T_k;
  c.D = 40;
  c.dtype = DType::bf16;
  c.layout = layout;
  c.causal = causal;
  c.kv_layout = KvLayout::paged;
  c.page_size = page_size;
  c.measure.verify_rows = 1 << 20;  // every row
  c.measure.min_samples = c.measure.max_samples = 1;
  c.measure.warmup = 0;
  return c;
}

Case contiguous_of(Case c) {
  c.kv_layout = KvLayout::contiguous;
  c.page_size = 0;
  return c;
}

TensorDesc desc(const Case& c, std::int64_t heads, std::int64_t seq) {
  return {static_cast<int>(c.B), static_cast<int>(heads), static_cast<int>(seq),
          static_cast<int>(c.D), tensor_strides(c.layout, heads, seq, c.D)};
}

// O (and LSE) of one backend run on a case's inputs; `table` replaces the seeded page table the
// backend reads through (the control's swapped one).
struct Output {
  std::vector<unsigned char> o;
  std::vector<float> lse;
};
Output run_backend(const Case& c, const std::vector<std::int32_t>* table = nullptr) {
  const auto host = make_host_platform();
  const TensorDesc qd = desc(c, c.H, c.T_q), kd = desc(c, c.H_kv, c.T_k);
  const std::size_t eb = static_cast<std::size_t>(dtype_bytes(c.dtype));
  std::vector<unsigned char> q(static_cast<std::size_t>(c.B * c.H * c.T_q * c.D) * eb);
  std::vector<unsigned char> k(static_cast<std::size_t>(c.B * c.H_kv * c.T_k * c.D) * eb);
  std::vector<unsigned char> v(k.size());
  host->fill(q.data(), qd, c.dtype, c.measure.seed, InputTensor::q, c.measure.inputs);
  host->fill(k.data(), kd, c.dtype, c.measure.seed, InputTensor::k, c.measure.inputs);
  host->fill(v.data(), kd, c.dtype, c.measure.seed, InputTensor::v, c.measure.inputs);
  Output out;
  out.o.assign(q.size(), 0xFF);
  out.lse.assign(static_cast<std::size_t>(c.B * c.H * c.T_q), 0.0f);
  AttnParams p = shape_params(c);
  // The pages are written through the case's own table (as the runner does) and read through
  // `table` when given.
  std::vector<std::int32_t> pages = page_table(c);
  std::vector<unsigned char> k_pool, v_pool;
  if (c.paged()) {
    k_pool = scatter_to_pages(c, k.data(), kd, pages);
    v_pool = scatter_to_pages(c, v.data(), kd, pages);
    if (table) pages = *table;
    p.block_table = pages.data();
  }
  p.q = q.data();
  p.k = c.paged() ? k_pool.data() : k.data();
  p.v = c.paged() ? v_pool.data() : v.data();
  p.o = out.o.data();
  p.lse = out.lse.data();
  auto be = c.backend == "cpu-naive" ? make_cpu_naive_backend() : make_cpu_flash_backend();
  HostMemoryTracker tracker;
  be->prepare(c, p, tracker);
  be->run(p, nullptr);
  be->release();
  return out;
}

// max_abs_err of an output against the float64 reference, every row.
double max_abs_err(const Case& c, const Output& out) {
  const std::vector<RowRef> rows = sample_rows(c, 1 << 20, 7);
  std::vector<double> ref, ref_lse;
  reference_rows(c, rows, ref, ref_lse);
  const TensorDesc qd = desc(c, c.H, c.T_q);
  std::vector<float> got;
  for (const RowRef& r : rows) {
    const std::int64_t base = r.b * qd.strides.b + r.h * qd.strides.h + r.i * qd.strides.t;
    for (std::int64_t d = 0; d < c.D; ++d) {
      std::uint16_t bits;
      std::memcpy(&bits, out.o.data() + (base + d) * 2, 2);
      got.push_back(bf16_to_float(bits));
    }
  }
  return compare_rows(c, rows, ref, got).max_abs_err;
}

TEST(CpuPaged, EqualsContiguousBitForBitOnOddShapes) {
  int runs = 0;
  for (const char* backend : {"cpu-naive", "cpu-flash"})
    for (const std::int64_t T_k : {1, 17, 1000})
      for (const std::int64_t page : {16, 256})
        for (const std::int64_t T_q : {1, 4})
          for (const Layout layout : {Layout::bhsd, Layout::bshd})
            for (const bool causal : {false, true}) {
              const Case c = paged_case(backend, T_q, T_k, page, layout, causal);
              SCOPED_TRACE(c.id());
              const Output paged = run_backend(c);
              const Output plain = run_backend(contiguous_of(c));
              ASSERT_EQ(paged.o, plain.o);
              ASSERT_EQ(std::memcmp(paged.lse.data(), plain.lse.data(), paged.lse.size() * 4), 0);
              ASSERT_LT(max_abs_err(c, paged), 2e-2);
              ++runs;
            }
  EXPECT_EQ(runs, 96);
}

// The platform's own paged fill (what the runner stages a paged case with) writes the pools
// scatter_to_pages builds from the logical tensor, bit for bit, the poisoned tails included:
// odd T_k, pages that do not divide it, both layouts, both dtypes. With two table entries
// swapped the pools differ, so the comparison sees the table.
TEST(CpuPaged, PlatformFillEqualsTheScatteredLogicalTensor) {
  const auto host = make_host_platform();
  for (DType dt : {DType::bf16, DType::fp16}) {
    for (std::int64_t T_k : {1, 17, 1000}) {
      for (std::int64_t ps : {16, 256}) {
        for (Layout layout : {Layout::bhsd, Layout::bshd}) {
          Case c = paged_case("cpu-flash", 1, T_k, ps, layout, false);
          c.dtype = dt;
          const TensorDesc kd = desc(c, c.H_kv, c.T_k);
          std::vector<unsigned char> logical(
              static_cast<std::size_t>(c.B * c.H_kv * c.T_k * c.D * dtype_bytes(dt)));
          host->fill(logical.data(), kd, dt, c.measure.seed, InputTensor::v, c.measure.inputs);
          const std::vector<std::int32_t> table = page_table(c);
          const std::vector<unsigned char> want = scatter_to_pages(c, logical.data(), kd, table);
          std::vector<unsigned char> pool(want.size(), 0);
          host->fill_paged(pool.data(), pool.size(), kd, static_cast<int>(ps), table.data(), dt,
                           c.measure.seed, InputTensor::v, c.measure.inputs);
          SCOPED_TRACE("T_k " + std::to_string(T_k) + ", pages of " + std::to_string(ps));
          EXPECT_EQ(pool, want);
          if (table.size() >= 2) {
            std::vector<std::int32_t> swapped = table;
            std::swap(swapped[0], swapped[1]);
            host->fill_paged(pool.data(), pool.size(), kd, static_cast<int>(ps), swapped.data(), dt,
                             c.measure.seed, InputTensor::v, c.measure.inputs);
            EXPECT_NE(pool, want);
          }
        }
      }
    }
  }
}

TEST(CpuPaged, ASwappedPageTableFailsTheAccuracyCheck) {
  for (const char* backend : {"cpu-naive", "cpu-flash"})
    for (const std::int64_t page : {16, 256}) {
      // T_k = 17: the swapped page holds 16 of sequence 0's keys (pages of 16) or all 17 (256).
      const Case c = paged_case(backend, 4, 17, page, Layout::bshd, true);
      SCOPED_TRACE(c.id());
      std::vector<std::int32_t> table = page_table(c);
      ASSERT_LT(max_abs_err(c, run_backend(c, &table)), 2e-2);
      // The first page of sequence 0 with the first of sequence 1: a swap inside one sequence
      // would only permute keys that every decode row sees, which softmax does not notice.
      std::swap(table[0], table[static_cast<std::size_t>(pages_per_seq(c))]);
      const double wrong = max_abs_err(c, run_backend(c, &table));
      EXPECT_GT(wrong, 0.1);
    }
}

TEST(CpuPaged, TheRunnerMeasuresItLikeContiguousAndPredictsItsPeak) {
  const auto platform = make_host_platform();
  for (const char* backend : {"cpu-naive", "cpu-flash"}) {
    const Case c = paged_case(backend, 4, 1000, 16, Layout::bhsd, true);
    auto be = c.backend == "cpu-naive" ? make_cpu_naive_backend() : make_cpu_flash_backend();
    const CaseResult paged = run_case(c, *be, *platform);
    const CaseResult plain = run_case(contiguous_of(c), *be, *platform);
    ASSERT_EQ(paged.status, Status::ok) << paged.reason;
    ASSERT_EQ(plain.status, Status::ok) << plain.reason;
    EXPECT_EQ(paged.accuracy.max_abs_err, plain.accuracy.max_abs_err);
    EXPECT_EQ(paged.accuracy.mean_abs_err, plain.accuracy.mean_abs_err);
    EXPECT_EQ(paged.accuracy.rel_l2_err, plain.accuracy.rel_l2_err);
    EXPECT_EQ(paged.accuracy.rows_checked, plain.accuracy.rows_checked);
    EXPECT_EQ(paged.accuracy.nonfinite, 0);
    // cpu-naive's peak is its prediction; cpu-flash adds per-thread tile scratch the prediction
    // leaves out (as for every contiguous case), the same for both layouts.
    if (c.backend == "cpu-naive") {
      EXPECT_EQ(paged.memory.peak_bytes, paged.memory.predicted_bytes);
    }
    EXPECT_EQ(paged.memory.peak_bytes - paged.memory.predicted_bytes,
              plain.memory.peak_bytes - plain.memory.predicted_bytes);
    // 63 pages of 16 rows for 1000 keys: the pools are larger than K and V, plus the table.
    EXPECT_EQ(paged.memory.predicted_bytes - plain.memory.predicted_bytes,
              2 * (2 * 2 * (63 * 16 - 1000) * 40 * 2) + 2 * 63 * 4);
    EXPECT_EQ(paged.memory.peak_bytes - plain.memory.peak_bytes,
              2 * (2 * 2 * (63 * 16 - 1000) * 40 * 2) + 2 * 63 * 4);
  }
  Case train = paged_case("cpu-flash", 4, 17, 16, Layout::bhsd, false);
  train.mode = Mode::fwd_bwd;
  auto be = make_cpu_flash_backend();
  const CaseResult r = run_case(train, *be, *platform);
  EXPECT_EQ(r.status, Status::unsupported);
  EXPECT_NE(r.reason.find("forward only"), std::string::npos) << r.reason;
}

}  // namespace
}  // namespace fa2b
