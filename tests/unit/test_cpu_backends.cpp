// SPDX-License-Identifier: Apache-2.0
// cpu-naive and cpu-flash against the float64 reference, with inputs filled exactly as the
// runner fills them (stored_input, in the layout's strides), plus their memory behaviour.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/cpu_backends.h"
#include "backends/cpu_common.h"
#include "backends/shape_params.h"
#include "common/numeric.h"
#include "core/case.h"
#include "dtype_values.h"
#include "small_cases.h"
#include "verify/reference.h"

namespace fa2b {
namespace {

using test_values::get;
using test_values::put;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

Case make_case(std::int64_t B, std::int64_t H, std::int64_t H_kv, std::int64_t T_q,
               std::int64_t T_k, std::int64_t D, DType dt, bool causal, Layout layout) {
  Case c;
  c.backend = "cpu-flash";
  c.B = B;
  c.H = H;
  c.H_kv = H_kv;
  c.T_q = T_q;
  c.T_k = T_k;
  c.D = D;
  c.dtype = dt;
  c.causal = causal;
  c.layout = layout;
  return c;
}

// Host tensors for one case, filled as the runner does, and the AttnParams pointing at them.
struct HostTensors {
  std::vector<std::uint8_t> q, k, v, o;
  std::vector<float> lse;
  AttnParams p;
  Strides sq{}, skv{};

  explicit HostTensors(const Case& c) {
    const std::int64_t eb = dtype_bytes(c.dtype);
    sq = tensor_strides(c.layout, c.H, c.T_q, c.D);
    skv = tensor_strides(c.layout, c.H_kv, c.T_k, c.D);
    q.resize(static_cast<std::size_t>(c.B * c.H * c.T_q * c.D * eb));
    o.resize(q.size());
    k.resize(static_cast<std::size_t>(c.B * c.H_kv * c.T_k * c.D * eb));
    v.resize(k.size());
    lse.assign(static_cast<std::size_t>(c.B * c.H * c.T_q), kNaN);
    fill(c, 1, q, sq, c.H, c.T_q);
    fill(c, 2, k, skv, c.H_kv, c.T_k);
    fill(c, 3, v, skv, c.H_kv, c.T_k);
    poison_output(c);

    p = shape_params(c);
    p.q = q.data();
    p.k = k.data();
    p.v = v.data();
    p.o = o.data();
    p.lse = lse.data();
  }

  static void fill(const Case& c, int tensor, std::vector<std::uint8_t>& buf, const Strides& s,
                   std::int64_t heads, std::int64_t seq) {
    for (std::int64_t b = 0; b < c.B; ++b)
      for (std::int64_t h = 0; h < heads; ++h)
        for (std::int64_t t = 0; t < seq; ++t)
          for (std::int64_t d = 0; d < c.D; ++d)
            put(c.dtype, buf, b * s.b + h * s.h + t * s.t + d, stored_input(c, tensor, b, h, t, d));
  }

  void poison_output(const Case& c) {
    const std::int64_t n = c.B * c.H * c.T_q * c.D;
    for (std::int64_t i = 0; i < n; ++i) put(c.dtype, o, i, kNaN);
    std::fill(lse.begin(), lse.end(), kNaN);
  }

  float out(const Case& c, std::int64_t b, std::int64_t h, std::int64_t i, std::int64_t d) const {
    return get(c.dtype, o, b * sq.b + h * sq.h + i * sq.t + d);
  }
};

struct Reference {
  std::vector<RowRef> rows;
  std::vector<double> out, lse;
  double max_abs = 0;
};

Reference make_reference(const Case& c, int max_rows) {
  Reference r;
  r.rows = sample_rows(c, max_rows, 7);
  reference_rows(c, r.rows, r.out, r.lse);
  for (double x : r.out) r.max_abs = std::max(r.max_abs, std::abs(x));
  return r;
}

// Runs one backend on a case and checks it against the reference; returns the run time.
// Wall and process-CPU seconds of the last run_and_check's run().
double g_cpu_seconds = 0;

double run_and_check(const std::string& backend, const Case& c, const Reference& ref) {
  SCOPED_TRACE(backend + " " + c.shape_key());
  auto be = backend == "cpu-naive" ? make_cpu_naive_backend() : make_cpu_flash_backend();
  EXPECT_EQ(be->name(), backend);
  EXPECT_FALSE(be->on_device());
  EXPECT_TRUE(be->supports(c, TargetInfo{}).ok);
  HostTensors ht(c);
  HostMemoryTracker tracker;
  be->prepare(c, ht.p, tracker);
  const auto t0 = std::chrono::steady_clock::now();
  const std::clock_t c0 = std::clock();
  be->run(ht.p, nullptr);
  g_cpu_seconds = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  be->release();
  EXPECT_EQ(tracker.current_bytes(), 0);

  // Whole output: nothing NaN (the poison must be overwritten everywhere).
  std::int64_t nonfinite = 0;
  for (std::int64_t b = 0; b < c.B; ++b)
    for (std::int64_t h = 0; h < c.H; ++h)
      for (std::int64_t i = 0; i < c.T_q; ++i)
        for (std::int64_t d = 0; d < c.D; ++d) nonfinite += !std::isfinite(ht.out(c, b, h, i, d));
  EXPECT_EQ(nonfinite, 0);

  std::vector<float> got;
  got.reserve(ref.rows.size() * static_cast<std::size_t>(c.D));
  for (const RowRef& r : ref.rows)
    for (std::int64_t d = 0; d < c.D; ++d) got.push_back(ht.out(c, r.b, r.h, r.i, d));
  const Accuracy acc = compare_rows(c, ref.rows, ref.out, got);
  const double tol = test_cases::output_tolerance(c.dtype) * std::max(1.0, ref.max_abs);
  EXPECT_LE(acc.max_abs_err, tol) << "rel_l2 " << acc.rel_l2_err;
  EXPECT_EQ(acc.nonfinite, 0);

  for (std::size_t r = 0; r < ref.rows.size(); ++r) {
    const RowRef& row = ref.rows[r];
    const double want = ref.lse[r];
    const float have = ht.lse[static_cast<std::size_t>((row.b * c.H + row.h) * c.T_q + row.i)];
    if (std::isinf(want)) {
      EXPECT_TRUE(std::isinf(have) && have < 0) << "row " << row.i << " lse " << have;
      for (std::int64_t d = 0; d < c.D; ++d) EXPECT_EQ(ht.out(c, row.b, row.h, row.i, d), 0.0f);
    } else {
      EXPECT_NEAR(have, want, 1e-3 * std::max(1.0, std::abs(want))) << "row " << row.i;
    }
  }
  return secs;
}

void check_both(const Case& c, int max_rows) {
  const Reference ref = make_reference(c, max_rows);
  run_and_check("cpu-naive", c, ref);
  run_and_check("cpu-flash", c, ref);
}

const std::vector<std::int64_t> kDims = {32, 64, 96, 128, 160, 192, 224, 256};
const std::vector<DType> kDTypes = {DType::fp16, DType::bf16, DType::fp32};
const std::vector<Layout> kLayouts = {Layout::bhsd, Layout::bshd};

// Short sequences: the full cross product of D, dtype, layout and masking, all rows checked.
TEST(CpuBackends, ShortSequencesEveryDimDtypeLayout) {
  for (std::int64_t T : {1, 17})
    for (std::int64_t D : kDims)
      for (DType dt : kDTypes)
        for (Layout layout : kLayouts)
          for (bool causal : {false, true}) {
            check_both(make_case(1, 2, 1, T, T, D, dt, causal, layout), 1 << 20);
          }
}

// T = 1000 crosses many 64-wide tiles with a ragged tail; every D once, the other axes rotated.
TEST(CpuBackends, LongSequenceEveryDim) {
  int n = 0;
  for (std::int64_t D : kDims) {
    const DType dt = kDTypes[static_cast<std::size_t>(n % 3)];
    const Layout layout = kLayouts[static_cast<std::size_t>(n / 2 % 2)];
    const bool causal = n % 2 == 0;
    check_both(make_case(1, 1, 1, 1000, 1000, D, dt, causal, layout), 48);
    ++n;
  }
}

TEST(CpuBackends, OddDimsAndBatches) {
  for (std::int64_t D : {1, 3, 8, 13, 33})
    for (bool causal : {false, true}) {
      check_both(make_case(2, 3, 3, 70, 70, D, DType::fp16, causal, Layout::bhsd), 1 << 20);
    }
}

TEST(CpuBackends, CausalWithMoreKeysThanQueries) {
  for (DType dt : kDTypes) {
    check_both(make_case(1, 2, 2, 37, 150, 64, dt, true, Layout::bshd), 1 << 20);
    check_both(make_case(1, 2, 2, 37, 150, 64, dt, false, Layout::bhsd), 1 << 20);
  }
}

TEST(CpuBackends, CausalWithMoreQueriesThanKeysGivesZeroRows) {
  // Rows i < T_q - T_k see no key: O zeros, LSE -inf (checked in run_and_check).
  for (DType dt : kDTypes) {
    const Case c = make_case(1, 2, 1, 150, 37, 96, dt, true, Layout::bhsd);
    const Reference ref = make_reference(c, 1 << 20);
    ASSERT_TRUE(std::isinf(ref.lse[0]));
    run_and_check("cpu-naive", c, ref);
    run_and_check("cpu-flash", c, ref);
  }
  // A whole 64-row tile of masked rows, and a tile that is partly masked.
  check_both(make_case(1, 1, 1, 200, 10, 32, DType::fp32, true, Layout::bshd), 1 << 20);
}

TEST(CpuBackends, GroupedQueryHeads) {
  check_both(make_case(2, 8, 2, 65, 65, 64, DType::bf16, true, Layout::bshd), 1 << 20);
  check_both(make_case(1, 6, 1, 40, 90, 128, DType::fp16, true, Layout::bhsd), 1 << 20);
  check_both(make_case(1, 4, 2, 90, 40, 32, DType::fp32, false, Layout::bhsd), 1 << 20);
}

// Sliding windows (flash-attention's window_size, bottom-right aligned; issue 20): lengths 1, 17
// and 1000, T_q != T_k both ways (T_q > T_k leaves rows that see no key: zeros, LSE -inf),
// widths 0, one-sided, two-sided and wider than T, alone and intersected with causal, GQA.
const SlidingWindow kWindows[] = {{0, 0}, {3, -1}, {-1, 5}, {16, 16}, {2000, 2000}};

TEST(CpuBackends, SlidingWindowsOnOddShapes) {
  struct Lengths {
    std::int64_t T_q, T_k;
  };
  const Lengths lengths[] = {{1, 1}, {17, 17}, {1000, 1000}, {17, 100}, {100, 17}, {1, 1000}};
  std::size_t n = 0;
  for (const Lengths& t : lengths)
    for (const SlidingWindow& w : kWindows)
      for (bool causal : {false, true}) {
        Case c = make_case(1, 2, 1, t.T_q, t.T_k, 64, kDTypes[n % 3], causal, kLayouts[n / 3 % 2]);
        c.window = w;
        ++n;
        check_both(c, t.T_q >= 1000 ? 256 : 1 << 20);
      }
}

TEST(CpuBackends, SlidingWindowRowsThatSeeNoKeyAreZero) {
  // T_q = 100 > T_k = 17 with right bound 5: rows i < 78 see no key.
  Case c = make_case(1, 1, 1, 100, 17, 32, DType::fp32, false, Layout::bhsd);
  c.window = {-1, 5};
  const Reference ref = make_reference(c, 1 << 20);
  ASSERT_TRUE(std::isinf(ref.lse[77]));
  ASSERT_FALSE(std::isinf(ref.lse[78]));
  run_and_check("cpu-naive", c, ref);
  run_and_check("cpu-flash", c, ref);
}

// Every head dim that is a multiple of 8 (issue 20): D = 8, 40, 80, 112, 200, full, causal and
// windowed (the CPU target takes any D; these are the ones the GPU kernels pad or refuse).
TEST(CpuBackends, HeadDimsMultipleOfEight) {
  std::size_t n = 0;
  for (std::int64_t D : {8, 40, 80, 112, 200})
    for (int mask = 0; mask < 3; ++mask) {
      Case c = make_case(2, 2, 1, 65, 90, D, kDTypes[n % 3], mask == 1, kLayouts[n % 2]);
      if (mask == 2) c.window = {7, 7};
      ++n;
      check_both(c, 1 << 20);
    }
}

TEST(CpuBackends, SupportsAndRejects) {
  for (const char* name : {"cpu-naive", "cpu-flash"}) {
    auto be =
        std::string(name) == "cpu-naive" ? make_cpu_naive_backend() : make_cpu_flash_backend();
    EXPECT_TRUE(
        be->supports(make_case(1, 1, 1, 1, 1, 1, DType::fp32, true, Layout::bhsd), TargetInfo{})
            .ok);
    EXPECT_TRUE(
        be->supports(make_case(1, 4, 1, 9, 3, 300, DType::bf16, true, Layout::bshd), TargetInfo{})
            .ok);
    const Support bad =
        be->supports(make_case(1, 6, 4, 8, 8, 64, DType::fp16, false, Layout::bhsd), TargetInfo{});
    EXPECT_FALSE(bad.ok);
    EXPECT_FALSE(bad.reason.empty());
    EXPECT_FALSE(
        be->supports(make_case(1, 1, 1, 0, 8, 64, DType::fp16, false, Layout::bhsd), TargetInfo{})
            .ok);
  }
}

// A broken kernel must fail these bounds: perturb one output element by a few ulps' worth and
// check compare_rows sees it above the tolerance.
TEST(CpuBackends, TolerancesAreTightEnoughToCatchErrors) {
  const Case c = make_case(1, 1, 1, 17, 17, 64, DType::fp32, true, Layout::bhsd);
  const Reference ref = make_reference(c, 1 << 20);
  std::vector<float> got(ref.out.begin(), ref.out.end());
  got[5] += 1e-4f;
  EXPECT_GT(compare_rows(c, ref.rows, ref.out, got).max_abs_err,
            test_cases::output_tolerance(DType::fp32));
  // Dropping the causal mask changes outputs far beyond any dtype's tolerance.
  Case full = c;
  full.causal = false;
  const Reference ref_full = make_reference(full, 1 << 20);
  got.assign(ref_full.out.begin(), ref_full.out.end());
  EXPECT_GT(compare_rows(c, ref.rows, ref.out, got).max_abs_err,
            test_cases::output_tolerance(DType::bf16));
}

TEST(CpuBackends, FastFp16ConversionMatchesReferenceForAllPatterns) {
  for (std::uint32_t u = 0; u < 0x10000u; ++u) {
    const float want = fp16_to_float(static_cast<std::uint16_t>(u));
    const float got = cpu::fp16_to_float_fast(static_cast<std::uint16_t>(u));
    ASSERT_EQ(float_bits(got), float_bits(want)) << std::hex << u;
  }
  // The vectorised row loader (eight lanes plus a scalar tail, here at an odd offset too).
  std::vector<std::uint16_t> all(0x10000u + 3);
  for (std::uint32_t u = 0; u < all.size(); ++u) all[u] = static_cast<std::uint16_t>(u);
  for (int offset : {0, 3}) {
    std::vector<float> row(0x10000u);
    cpu::load_row(all.data(), offset, static_cast<int>(row.size()), KernelDType::fp16, row.data());
    for (std::uint32_t u = 0; u < row.size(); ++u) {
      const float want = fp16_to_float(all[u + static_cast<std::uint32_t>(offset)]);
      ASSERT_EQ(float_bits(row[u]), float_bits(want)) << std::hex << u << " offset " << offset;
    }
  }
}

#ifdef FA2BENCH_OPENMP
constexpr bool kOpenMP = true;
#else
constexpr bool kOpenMP = false;
#endif

TEST(CpuBackends, OutputIsIndependentOfThreadCount) {
  const Case c = make_case(2, 3, 1, 300, 300, 80, DType::bf16, true, Layout::bshd);
  for (const char* name : {"cpu-flash", "cpu-naive"}) {
    std::vector<std::vector<std::uint8_t>> outs;
    for (const char* threads : {"1", "3"}) {
      ::setenv("FA2BENCH_CPU_THREADS", threads, 1);
      EXPECT_EQ(cpu::thread_count(), kOpenMP ? std::atoi(threads) : 1);
      HostTensors ht(c);
      HostMemoryTracker tracker;
      auto be =
          std::string(name) == "cpu-naive" ? make_cpu_naive_backend() : make_cpu_flash_backend();
      be->prepare(c, ht.p, tracker);
      be->run(ht.p, nullptr);
      be->release();
      outs.push_back(ht.o);
    }
    ::unsetenv("FA2BENCH_CPU_THREADS");
    EXPECT_TRUE(outs[0] == outs[1]) << name;  // bit-identical: each tile is one thread's
  }
}

TEST(CpuParallelFor, RunsEveryItemOnceOnThreadsBelowTheCount) {
  for (int threads : {1, 2, 5}) {
    for (std::int64_t n : {std::int64_t{0}, std::int64_t{1}, std::int64_t{3}, std::int64_t{997}}) {
      std::vector<int> runs(static_cast<std::size_t>(n), 0);
      std::vector<int> thread_of(static_cast<std::size_t>(n), -1);
      cpu::parallel_for(threads, n, [&](int t, std::int64_t i) {
        ++runs[static_cast<std::size_t>(i)];  // each item once: no two threads share an index
        thread_of[static_cast<std::size_t>(i)] = t;
      });
      for (std::int64_t i = 0; i < n; ++i) {
        EXPECT_EQ(runs[static_cast<std::size_t>(i)], 1) << threads << " " << n << " " << i;
        const int t = thread_of[static_cast<std::size_t>(i)];
        EXPECT_GE(t, 0);
        EXPECT_LT(t, std::max(1, static_cast<int>(std::min<std::int64_t>(threads, n))));
      }
    }
  }
}

TEST(CpuParallelFor, UsesSeveralThreadsWithOpenMP) {
  if (!kOpenMP) GTEST_SKIP() << "built without OpenMP: parallel_for runs on one thread";
  // Every item waits until two threads have entered, so one thread alone could not finish.
  std::atomic<int> entered{0};
  std::vector<int> thread_of(4, -1);
  cpu::parallel_for(2, 4, [&](int t, std::int64_t i) {
    if (i < 2) {
      entered.fetch_add(1);
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (entered.load() < 2 && std::chrono::steady_clock::now() < until) {
      }
    }
    thread_of[static_cast<std::size_t>(i)] = t;
  });
  EXPECT_EQ(entered.load(), 2);
  EXPECT_NE(thread_of[0], thread_of[1]);
}

TEST(CpuParallelFor, RethrowsTheBodysExceptionOnTheCaller) {
  for (int threads : {1, 3}) {
    std::atomic<int> ran{0};
    EXPECT_THROW(cpu::parallel_for(threads, 64,
                                   [&](int, std::int64_t i) {
                                     ran.fetch_add(1);
                                     if (i == 5) throw std::runtime_error("item 5");
                                   }),
                 std::runtime_error);
    // Serially the items before it ran; on a team, items handed out before the throw may be
    // skipped once another thread has failed.
    if (threads == 1) {
      EXPECT_EQ(ran.load(), 6);
    }
    EXPECT_GE(ran.load(), 1);
  }
}

TEST(CpuBackends, NaivePeakIsExactlyScoresPlusProbabilities) {
  for (DType dt : kDTypes) {
    const Case c = make_case(2, 3, 1, 100, 70, 64, dt, true, Layout::bhsd);
    HostTensors ht(c);
    HostMemoryTracker tracker;
    auto be = make_cpu_naive_backend();
    be->prepare(c, ht.p, tracker);
    const std::int64_t count = c.B * c.H * c.T_q * c.T_k;
    EXPECT_EQ(tracker.current_bytes(), count * (4 + dtype_bytes(dt)));
    be->run(ht.p, nullptr);
    be->release();
    EXPECT_EQ(tracker.current_bytes(), 0);
    EXPECT_EQ(tracker.peak_bytes(), count * (4 + dtype_bytes(dt)));
  }
}

TEST(CpuBackends, FlashExtraMemoryDoesNotGrowWithT) {
  // Scratch is one tile set per thread, capped by the work items; pin the thread count so both
  // lengths have more items than threads on any machine.
  setenv("FA2BENCH_CPU_THREADS", "2", 1);
  std::vector<std::int64_t> peaks;
  for (std::int64_t T : {256, 1024}) {
    const Case c = make_case(1, 2, 2, T, T, 128, DType::fp16, true, Layout::bhsd);
    HostTensors ht(c);
    HostMemoryTracker tracker;
    auto be = make_cpu_flash_backend();
    be->prepare(c, ht.p, tracker);
    be->run(ht.p, nullptr);
    be->release();
    EXPECT_EQ(tracker.current_bytes(), 0);
    peaks.push_back(tracker.peak_bytes());
  }
  EXPECT_GT(peaks[0], 0);
  EXPECT_EQ(peaks[0], peaks[1]);
  // O(threads * tile): far below even one 1024 x 1024 float32 score matrix per thread.
  EXPECT_LT(peaks[1], static_cast<std::int64_t>(cpu::thread_count()) * 1024 * 1024 * 4);
  unsetenv("FA2BENCH_CPU_THREADS");
}

TEST(CpuBackends, OverBudgetPrepareThrowsWithoutLeaking) {
  const Case c = make_case(1, 4, 4, 512, 512, 64, DType::fp16, false, Layout::bhsd);
  HostTensors ht(c);
  {
    // S fits, P does not: the S allocation must be handed back.
    HostMemoryTracker tracker;
    const std::int64_t s_bytes = c.B * c.H * c.T_q * c.T_k * 4;
    tracker.set_budget(s_bytes + 1);
    auto be = make_cpu_naive_backend();
    EXPECT_THROW(be->prepare(c, ht.p, tracker), OutOfMemory);
    EXPECT_EQ(tracker.current_bytes(), 0);
    EXPECT_EQ(tracker.peak_bytes(), s_bytes);
    be->release();
    EXPECT_EQ(tracker.current_bytes(), 0);
  }
  {
    HostMemoryTracker tracker;
    tracker.set_budget(1024);
    auto be = make_cpu_flash_backend();
    EXPECT_THROW(be->prepare(c, ht.p, tracker), OutOfMemory);
    EXPECT_EQ(tracker.current_bytes(), 0);
    be->release();
    EXPECT_EQ(tracker.current_bytes(), 0);
  }
}

// The performance target (B=1, H=32, T=2048, D=128, causal, fp16 in a few seconds on 2 cores).
// Disabled by default; run with --gtest_also_run_disabled_tests.
TEST(CpuBackends, DISABLED_FlashPerfB1H32T2048D128) {
  const Case c = make_case(1, 32, 32, 2048, 2048, 128, DType::fp16, true, Layout::bhsd);
  const Reference ref = make_reference(c, 64);
  const double secs = run_and_check("cpu-flash", c, ref);
  // CPU time too: on a shared machine the wall time says more about the neighbours.
  std::printf(
      "cpu-flash B1-H32-T2048-D128 causal fp16: %.3f s wall, %.3f s CPU (%d threads), "
      "%.1f GFLOP/s per CPU-second\n",
      secs, g_cpu_seconds, cpu::thread_count(),
      4.0 * 32 * 2048.0 * 2048 * 128 / 2 / g_cpu_seconds / 1e9);
}

}  // namespace
}  // namespace fa2b
