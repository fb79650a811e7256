// SPDX-License-Identifier: Apache-2.0
// Adding a backend is one file plus one catalog entry: this file is that file for a toy CPU
// backend, "toy-rows" (plain row-at-a-time attention in float32). Registering its entry and
// factory is all it takes for a config to name it, for the shape algebra to predict its memory
// and for the runner to verify, time and account for its cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "backends/backend.h"
#include "backends/cpu_common.h"
#include "config/config.h"
#include "core/shape_algebra.h"
#include "runner/platform.h"
#include "runner/sweep_runner.h"
#include "runtime/device_info.h"

namespace fa2b {
namespace {

// Forward only, no workspace: each query row's scores, softmax and P V in a local buffer.
class ToyRows final : public Backend {
 public:
  std::string_view name() const override { return "toy-rows"; }
  bool on_device() const override { return false; }
  Support supports(const Case& c, const TargetInfo&) const override {
    const Support s = cpu::check_case(c);
    return s.ok ? catalog_mode_support(c, name()) : s;
  }
  void run(const AttnParams& p, void*) override {
    std::vector<float> q(p.D), k(p.D), v(p.D), o(p.D), s(p.T_k);
    for (int b = 0; b < p.B; ++b) {
      for (int h = 0; h < p.H; ++h) {
        const int hk = cpu::kv_head(p, h);
        for (std::int64_t i = 0; i < p.T_q; ++i) {
          cpu::load_row(p.q, cpu::q_offset(p, b, h, i), p.D, p.dtype, q.data());
          const std::int64_t first = first_visible_key(p, i), last = last_visible_key(p, i);
          float max = -INFINITY;
          for (std::int64_t j = first; j <= last; ++j) {
            cpu::load_row(p.k, cpu::k_offset(p, b, hk, j), p.D, p.dtype, k.data());
            float dot = 0;
            for (int d = 0; d < p.D; ++d) dot += q[d] * k[d];
            s[j] = dot * p.scale;
            max = std::max(max, s[j]);
          }
          float sum = 0;
          std::fill(o.begin(), o.end(), 0.0f);
          for (std::int64_t j = first; j <= last; ++j) {
            const float e = std::exp(s[j] - max);
            sum += e;
            cpu::load_row(p.v, cpu::v_offset(p, b, hk, j), p.D, p.dtype, v.data());
            for (int d = 0; d < p.D; ++d) o[d] += e * v[d];
          }
          // A row that sees no key: zero output, LSE -inf (the reference's convention).
          for (int d = 0; d < p.D; ++d) o[d] = sum > 0 ? o[d] / sum : 0.0f;
          cpu::store_row(p.o, cpu::o_offset(p, b, h, i), p.D, p.dtype, o.data());
          if (p.lse) p.lse[(std::int64_t{b} * p.H + h) * p.T_q + i] = max + std::log(sum);
        }
      }
    }
  }
};

// The one catalog entry.
void register_toy_backend() {
  static const bool registered = [] {
    BackendEntry e;
    e.name = "toy-rows";
    e.device = BackendDevice::cpu;
    e.scores = ScoreStorage::streams;
    e.backward_workspace_bytes = row_sums_bytes;
    e.backward_workspace_note = "none (forward only)";
    e.modes = {Mode::fwd};
    e.description = "test only: attention one query row at a time";
    register_backend(e, [] { return std::unique_ptr<Backend>(new ToyRows()); });
    return true;
  }();
  (void)registered;
}

TEST(ToyBackend, OneEntryAndOneFactoryRunItThroughConfigAndRunner) {
  register_toy_backend();
  EXPECT_TRUE(backend_built("toy-rows"));
  EXPECT_FALSE(is_device_backend("toy-rows"));

  // The config validates the name against the catalog, like any built-in one.
  const nlohmann::json raw = nlohmann::json::parse(R"({
    "name": "toy",
    "defaults": {"H": 2, "D": 32, "dtype": "fp16", "causal": true},
    "measure": {"warmup": 0, "min_samples": 2, "max_samples": 3},
    "sweeps": [{"name": "s", "backends": ["toy-rows", "cpu-flash"], "grid": {"T": [17, 40]}}]
  })");
  const Config config = parse_config(raw, "toy.json", {});
  ASSERT_EQ(config.cases.size(), 4u);

  auto platform = make_host_platform();
  SweepOptions options;
  options.progress = false;
  const ResultSet rs = run_sweep(source_of(config), config.cases, *platform, options);
  ASSERT_EQ(rs.cases.size(), 4u);
  int toy = 0;
  for (const CaseResult& r : rs.cases) {
    if (r.c.backend != "toy-rows") continue;
    ++toy;
    ASSERT_EQ(r.status, Status::ok) << r.reason;
    EXPECT_TRUE(r.accuracy.checked);
    EXPECT_LT(r.accuracy.max_abs_err, 2e-3);
    EXPECT_GE(r.time.n, 2);
    // A streaming entry: the prediction is the inputs and outputs, which is all it allocates.
    EXPECT_EQ(r.memory.predicted_bytes, io_bytes(r.c));
    EXPECT_EQ(r.memory.peak_bytes, r.memory.predicted_bytes);
  }
  EXPECT_EQ(toy, 2);

  // Its entry's modes decide the training modes: forward only.
  Case bwd = config.cases.front();
  bwd.mode = Mode::bwd;
  const Support s = make_backend("toy-rows")->supports(bwd, cpu_target_info());
  EXPECT_FALSE(s.ok);
  EXPECT_NE(s.reason.find("backward not implemented yet for toy-rows"), std::string::npos)
      << s.reason;
}

}  // namespace
}  // namespace fa2b
