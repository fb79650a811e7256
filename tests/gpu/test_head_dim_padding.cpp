// SPDX-License-Identifier: Apache-2.0
// Head dims run padded (issue 47, "every head dim both directions"): on fa2 a D that is not a
// multiple of 8 (7, 43, 59: padded copies, backends/cuda/head_dim_padding.h) and multiples of 8
// without a tile of their own (40, 80: the kernels' padded tiles); on naive and fa3 (sm_90) the
// copies (D = 59 as 64; fa3 refuses D = 43, whose 48 it has no kernel for), forward and training
// step, bhsd and bshd, grouped-query heads, through the case runner against float64: outputs and
// gradients within the bf16 bounds of the other runner tests, every element finite (a column
// past D written into the next row would break a neighbour's values), predicted memory ==
// tracked (the padded copies and the wider dQ accumulator included), nothing left allocated.
// The support rules (no device needed) run everywhere.
#include <gtest/gtest.h>

#include <string>

#include "backends/backend.h"
#include "core/shape_algebra.h"
#include "gpu_available.h"
#include "runner/case_runner.h"
#include "runner/platform.h"
#include "runner_expect.h"

namespace fa2b {
namespace {

Case padded_case(std::int64_t D, Mode mode, Layout layout, bool causal,
                 const std::string& backend = "fa2") {
  Case c;
  c.sweep = "head-dim-padding-test";
  c.backend = c.role = backend;
  c.B = 2;
  c.H = 4;
  c.H_kv = 2;
  c.T_q = 113;
  c.T_k = 203;
  c.D = D;
  c.dtype = DType::bf16;
  c.causal = causal;
  c.layout = layout;
  c.mode = mode;
  c.measure.warmup = 0;
  c.measure.min_samples = 1;
  c.measure.max_samples = 2;
  c.measure.l2_flush = false;
  c.measure.verify = VerifyMode::full;
  return c;
}

TargetInfo sm90() {
  return sm90_target(80);
}

TEST(HeadDimPadding, Fa2TakesEveryHeadDimUpTo256) {
  auto fa2 = make_backend("fa2");
  ASSERT_NE(fa2, nullptr);
  for (Mode m : {Mode::fwd, Mode::fwd_bwd}) {
    for (std::int64_t D = 1; D <= 256; ++D) {
      const Support s = fa2->supports(padded_case(D, m, Layout::bhsd, true), sm90());
      EXPECT_TRUE(s.ok) << D << " " << to_string(m) << ": " << s.reason;
    }
    const Support big = fa2->supports(padded_case(259, m, Layout::bhsd, true), sm90());
    EXPECT_FALSE(big.ok);
    EXPECT_NE(big.reason.find("D=259 runs padded to D=264"), std::string::npos) << big.reason;
  }
  Case paged = padded_case(59, Mode::fwd, Layout::bhsd, true);
  paged.kv_layout = KvLayout::paged;
  paged.page_size = 16;
  const Support s = fa2->supports(paged, sm90());
  EXPECT_FALSE(s.ok);
  EXPECT_NE(s.reason.find("paged KV layout at D=59"), std::string::npos) << s.reason;
}

TEST(HeadDimPadding, PaddingBytesArePredictedForThePaddingBackendOnly) {
  Case c = padded_case(59, Mode::fwd, Layout::bhsd, true);
  // Q, O: 2*113 rows x 4 heads; K, V: 2*203 rows x 2 heads; 64 bf16 columns each.
  const std::int64_t forward = (2 * 2 * 113 * 4 + 2 * 2 * 203 * 2) * 64 * 2;
  EXPECT_EQ(head_dim_padding_bytes(c), forward);
  c.mode = Mode::fwd_bwd;
  EXPECT_EQ(head_dim_padding_bytes(c), 2 * forward);
  c.D = 64;
  EXPECT_EQ(head_dim_padding_bytes(c), 0);
  c.D = 59;
  c.backend = "standard";  // refuses such a D: nothing padded
  EXPECT_EQ(head_dim_padding_bytes(c), 0);
}

TEST(HeadDimPadding, NaiveAndFa3PadToTheirOwnHeadDims) {
  auto naive = make_backend("naive");
  ASSERT_NE(naive, nullptr);
  for (std::int64_t D : {1, 7, 59, 255}) {
    const Support s =
        naive->supports(padded_case(D, Mode::fwd_bwd, Layout::bhsd, true, "naive"), sm90());
    EXPECT_TRUE(s.ok) << D << ": " << s.reason;
  }
  auto fa3 = make_backend("fa3");
  if (fa3 == nullptr) return;  // fa3 only in builds for sm_90
  for (std::int64_t D : {59, 127, 250}) {
    const Support s =
        fa3->supports(padded_case(D, Mode::fwd_bwd, Layout::bhsd, true, "fa3"), sm90());
    EXPECT_TRUE(s.ok) << D << ": " << s.reason;
  }
  const Support s = fa3->supports(padded_case(43, Mode::fwd, Layout::bhsd, true, "fa3"), sm90());
  EXPECT_FALSE(s.ok);
  EXPECT_NE(s.reason.find("D=43 runs padded to D=48"), std::string::npos) << s.reason;
}

TEST(HeadDimPadding, Fa2MatchesFloat64ThroughTheRunner) {
  FA2B_REQUIRE_GPU();
  std::string why;
  auto platform = make_cuda_platform(0, 0, &why);
  ASSERT_NE(platform, nullptr) << why;
  auto fa2 = make_backend("fa2");
  int n = 0;
  for (std::int64_t D : {7, 40, 43, 59, 80, 250}) {
    for (Mode m : {Mode::fwd, Mode::fwd_bwd}) {
      const Layout layout = n % 2 == 0 ? Layout::bhsd : Layout::bshd;
      const Case c = padded_case(D, m, layout, n % 3 != 1);
      ++n;
      const CaseResult r = run_case(c, *fa2, *platform);
      const std::string id = c.id();
      ASSERT_EQ(r.status, Status::ok) << id << ": " << r.reason;
      SCOPED_TRACE(id);
      expect_matches_reference(r, 3e-2, 1e-2, 2e-2);
      const bool copies = D % 8 != 0;
      EXPECT_EQ(r.backend_info.find("padded to D=") != std::string::npos, copies)
          << id << ": " << r.backend_info;
      EXPECT_EQ(r.memory.peak_bytes, r.memory.predicted_bytes) << id << " " << r.backend_info;
      EXPECT_EQ(platform->tracker().current_bytes(), 0) << id;
    }
  }
  for (const char* name : {"naive", "fa3"}) {
    auto backend = make_backend(name);
    if (backend == nullptr) continue;
    for (Mode m : {Mode::fwd, Mode::fwd_bwd}) {
      const Case c = padded_case(59, m, m == Mode::fwd ? Layout::bhsd : Layout::bshd, true, name);
      const CaseResult r = run_case(c, *backend, *platform);
      const std::string id = c.id();
      if (r.status == Status::unsupported && std::string(name) == "fa3") continue;  // not sm_90
      ASSERT_EQ(r.status, Status::ok) << id << ": " << r.reason;
      SCOPED_TRACE(id);
      expect_matches_reference(r, 3e-2, 1e-2, 2e-2);
      EXPECT_NE(r.backend_info.find("D=59 padded to D=64"), std::string::npos) << id;
      EXPECT_EQ(r.memory.peak_bytes, r.memory.predicted_bytes) << id << " " << r.backend_info;
      EXPECT_EQ(platform->tracker().current_bytes(), 0) << id;
    }
  }
}

}  // namespace
}  // namespace fa2b
