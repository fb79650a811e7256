// SPDX-License-Identifier: Apache-2.0
// The peer backends' names, memory model and CPU-target behaviour (no GPU needed).
#include <gtest/gtest.h>

#include <algorithm>

#include "backends/backend.h"
#include "core/shape_algebra.h"
#include "runtime/device_info.h"

namespace fa2b {
namespace {

TEST(PeerRegistry, NamesAndCounterparts) {
  const auto& names = known_backend_names();
  for (const char* n : {"standard", "cudnn"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
    EXPECT_TRUE(is_device_backend(n)) << n;
  }
  EXPECT_EQ(cpu_counterpart("standard"), "cpu-naive");
  EXPECT_EQ(cpu_counterpart("cudnn"), "");
}

TEST(PeerRegistry, CudnnOnTheCpuTargetIsUnsupported) {
  auto b = make_backend("cudnn");
  ASSERT_NE(b, nullptr);
  Case c;
  c.backend = c.role = "cudnn";
  const Support s = b->supports(c, cpu_target_info());
  EXPECT_FALSE(s.ok);
  EXPECT_EQ(s.reason, "cudnn needs the cuda target");
}

TEST(PeerRegistry, StandardPredictedPeakCountsScoresAndCublasWorkspace) {
  Case c;
  c.backend = c.role = "standard";
  c.B = 2;
  c.H = 4;
  c.H_kv = 4;
  c.T_q = c.T_k = 17;
  c.D = 64;
  c.dtype = DType::bf16;
  const double predicted = *plan_metric_value(c, "predicted_bytes");
  EXPECT_EQ(static_cast<std::int64_t>(predicted),
            io_bytes(c) + 2 * 4 * 17 * 17 * (4 + 2) + kStandardCublasWorkspaceBytes);
}

}  // namespace
}  // namespace fa2b
