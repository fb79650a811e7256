// SPDX-License-Identifier: Apache-2.0
// Size guards: cases whose row index B*H*T_q would overflow the kernels' 32-bit row arithmetic
// are refused before launch. supports() is host code, so this runs without a GPU (but needs a
// build with the CUDA target, where the fa2 and naive backends exist).
#include <gtest/gtest.h>

#include "backends/backend.h"

#ifdef FA2BENCH_WITH_CUDA
#include "backends/cuda/cuda_backends.h"
#endif

namespace fa2b {
namespace {

#ifdef FA2BENCH_WITH_CUDA
constexpr std::int64_t kIntMax = 2147483647;  // 2^31 - 1

TargetInfo h100_like() {
  TargetInfo t;
  t.cuda = true;
  t.cc_major = 9;
  t.cc_minor = 0;
  t.memory_bytes = std::int64_t{80} << 30;
  return t;
}

Case rows_case(std::int64_t B, std::int64_t H, std::int64_t T_q) {
  Case c;
  c.backend = c.role = "fa2";
  c.B = B;
  c.H = c.H_kv = H;
  c.T_q = T_q;
  c.T_k = 128;
  c.D = 128;
  c.dtype = DType::fp16;
  return c;
}

TEST(SizeGuards, RowCountAtTheLimitPassesTheSharedGate) {
  // 2^31 - 1 is prime: B = H = 1 reaches it exactly; 32 heads get within 31 rows of it.
  EXPECT_TRUE(our_kernel_support(rows_case(1, 1, kIntMax), h100_like(), "fa2").ok);
  EXPECT_TRUE(our_kernel_support(rows_case(1, 32, kIntMax / 32), h100_like(), "fa2").ok);
}

TEST(SizeGuards, OneRowPastTheLimitIsRefused) {
  for (const Case& c : {rows_case(1, 1, kIntMax + 1), rows_case(2, 1, std::int64_t{1} << 30),
                        rows_case(1, 32, std::int64_t{1} << 26), rows_case(1 << 16, 1 << 16, 1),
                        rows_case(1, 1, std::int64_t{1} << 40)}) {
    const Support s = our_kernel_support(c, h100_like(), "fa2");
    EXPECT_FALSE(s.ok) << c.id();
    EXPECT_NE(s.reason.find("32-bit"), std::string::npos) << s.reason;
  }
}

TEST(SizeGuards, Fa2AndNaiveBackendsRefuseOverflowingRowsBeforeLaunch) {
  for (const char* name : {"fa2", "naive"}) {
    auto backend = make_backend(name);
    ASSERT_NE(backend, nullptr) << name;
    Case c = rows_case(2, 32, std::int64_t{1} << 25);  // 2^31 rows: one past the limit
    c.backend = c.role = name;
    const Support s = backend->supports(c, h100_like());
    EXPECT_FALSE(s.ok) << name;
    EXPECT_NE(s.reason.find("32-bit"), std::string::npos) << name << ": " << s.reason;
    // An ordinary shape is accepted by both.
    const Case small = rows_case(1, 32, 2048);
    EXPECT_TRUE(backend->supports(small, h100_like()).ok)
        << name << ": " << backend->supports(small, h100_like()).reason;
  }
}

TEST(SizeGuards, CpuTargetAndOldGpusAreRefusedToo) {
  TargetInfo cpu;
  EXPECT_FALSE(our_kernel_support(rows_case(1, 1, 64), cpu, "fa2").ok);
  TargetInfo old = h100_like();
  old.cc_major = 7;
  EXPECT_FALSE(our_kernel_support(rows_case(1, 1, 64), old, "fa2").ok);
}
#else
TEST(SizeGuards, NeedTheCudaBuild) {
  GTEST_SKIP() << "built without CUDA: the fa2 and naive backends are not in this build";
}
#endif

}  // namespace
}  // namespace fa2b
