// SPDX-License-Identifier: Apache-2.0
// The training-mode parts of the config and the case model: the `mode` axis, its ids, its
// errors, refused training options, the FLOP convention and per-mode backend support.
#include <gtest/gtest.h>

#include "backends/backend.h"
#include "config/config.h"
#include "config_errors.h"
#include "core/shape_algebra.h"

namespace fa2b {
namespace {

using test_config::errors_of;
using test_config::has_error;

using json = nlohmann::json;

json with_grid(const json& grid) {
  json j = json::parse(R"({
    "name": "t",
    "defaults": {"H": 4, "D": 64},
    "sweeps": [{"name": "s", "backends": ["naive", "fa2"], "grid": {"T": [128]}}]
  })");
  for (const auto& item : grid.items()) j["sweeps"][0]["grid"][item.key()] = item.value();
  return j;
}

TEST(TrainingConfig, ModeAxisExpandsAndTagsOnlyTrainingIds) {
  const Config c = parse_config(with_grid({{"mode", {"fwd", "bwd", "fwd_bwd"}}}), "t.json");
  ASSERT_EQ(c.cases.size(), 6u);
  EXPECT_EQ(c.cases[0].id(), "naive/B1-H4-T128-D64/fp16/full");  // fwd ids as before modes
  EXPECT_EQ(c.cases[0].mode, Mode::fwd);
  EXPECT_EQ(c.cases[2].id(), "naive/B1-H4-T128-D64/fp16/full/bwd");
  EXPECT_EQ(c.cases[5].id(), "fa2/B1-H4-T128-D64/fp16/full/fwd_bwd");
  EXPECT_EQ(c.cases[5].mode, Mode::fwd_bwd);
}

TEST(TrainingConfig, ModeDefaultsToForward) {
  const Config c = parse_config(with_grid(json::object()), "t.json");
  for (const Case& k : c.cases) EXPECT_EQ(k.mode, Mode::fwd);
}

TEST(TrainingConfig, ModeInDefaultsAndSelectors) {
  json j = with_grid(json::object());
  j["defaults"]["mode"] = "fwd_bwd";
  j["checks"] = json::parse(R"([{"name": "n", "kind": "threshold", "metric": "max_abs_err_dq",
    "select": {"backend": "fa2", "mode": "fwd_bwd"}, "op": "<", "value": 1}])");
  const Config c = parse_config(j, "t.json");
  for (const Case& k : c.cases) EXPECT_EQ(k.mode, Mode::fwd_bwd);
  ASSERT_EQ(c.checks.size(), 1u);
}

TEST(TrainingConfig, UnknownModeNamesThePointer) {
  EXPECT_TRUE(has_error(with_grid({{"mode", {"fwd", "train"}}}),
                        "/sweeps/0/grid/mode/1: unknown mode \"train\""));
  EXPECT_TRUE(has_error(with_grid({{"mode", 1}}), "/sweeps/0/grid/mode: expected a mode name"));
}

TEST(TrainingConfig, DropoutAndOtherTrainingOptionsAreRefusedByName) {
  EXPECT_TRUE(has_error(with_grid({{"dropout", 0.1}}),
                        "/sweeps/0/grid/dropout: \"dropout\" is not supported"));
  json sweep_level = with_grid(json::object());
  sweep_level["sweeps"][0]["dropout_p"] = 0.1;
  EXPECT_TRUE(has_error(sweep_level, "/sweeps/0/dropout_p: \"dropout_p\" is not supported"));
  json defaults = with_grid(json::object());
  defaults["defaults"]["softcap"] = 30;
  EXPECT_TRUE(has_error(defaults, "/defaults/softcap: \"softcap\" is not supported"));
}

TEST(TrainingConfig, GradientMetricsAreKnownToChecks) {
  json j = with_grid({{"mode", "fwd_bwd"}, {"T", {128, 256}}});
  j["checks"] = json::parse(R"([{"name": "n", "kind": "accuracy_rule", "metric": "max_abs_err_dk",
    "select": {}, "baseline": "naive"}, {"name": "g", "kind": "growth", "metric": "saved_bytes",
    "select": {"backend": "fa2"}, "axis": "T", "from": 128, "to": 256, "op": "<=", "value": 2.2}])");
  EXPECT_TRUE(errors_of(j).empty());
  j["checks"][0]["metric"] = "max_abs_err_dx";
  EXPECT_TRUE(has_error(j, "/checks/0/metric"));
}

Case training_case(const std::string& backend, Mode mode) {
  Case c;
  c.backend = c.role = backend;
  c.B = 2;
  c.H = 4;
  c.H_kv = 2;
  c.T_q = 100;
  c.T_k = 64;
  c.D = 32;
  c.dtype = DType::bf16;
  c.causal = true;
  c.mode = mode;
  return c;
}

TEST(TrainingPlan, FlopsFollowFlashAttentionsConvention) {
  const Case fwd = training_case("fa2", Mode::fwd);
  EXPECT_DOUBLE_EQ(case_flops(training_case("fa2", Mode::bwd)), 2.5 * attention_flops(fwd));
  EXPECT_DOUBLE_EQ(case_flops(training_case("fa2", Mode::fwd_bwd)), 3.5 * attention_flops(fwd));
  EXPECT_DOUBLE_EQ(*plan_metric_value(training_case("fa2", Mode::fwd_bwd), "flops"),
                   3.5 * attention_flops(fwd));
}

TEST(TrainingPlan, SavedBytesAreLseForStreamingAndPlusPForMaterialising) {
  const std::int64_t lse = 2 * 4 * 100 * 4;
  EXPECT_EQ(saved_bytes(training_case("fa2", Mode::fwd)), 0);
  EXPECT_EQ(saved_bytes(training_case("fa2", Mode::fwd_bwd)), lse);
  EXPECT_EQ(saved_bytes(training_case("cpu-flash", Mode::bwd)), lse);
  EXPECT_EQ(saved_bytes(training_case("cpu-naive", Mode::fwd_bwd)), lse + 2 * 4 * 100 * 64 * 2);
  // naive pads rows of P to 8 elements and rounds the matrix to 256 bytes, as it allocates.
  EXPECT_EQ(saved_bytes(training_case("naive", Mode::fwd_bwd)),
            lse + (2 * 4 * 100 * 64 * 2 + 255) / 256 * 256);
}

TEST(TrainingPlan, Fa2BackwardWorkspaceIsItsAccumulatorAndRowSums) {
  const Case c = training_case("fa2", Mode::fwd_bwd);
  EXPECT_EQ(backward_workspace_bytes(c), 4 * c.B * c.H * c.T_q * (c.D + 1));
  EXPECT_EQ(*plan_metric_value(c, "predicted_bytes"),
            static_cast<double>(io_bytes(c) + grad_io_bytes(c) + backward_workspace_bytes(c)));
  EXPECT_EQ(grad_io_bytes(training_case("fa2", Mode::fwd)), 0);
  // dO and dQ like Q, dK and dV like K and V.
  EXPECT_EQ(grad_io_bytes(c), 2 * (2 * 4 * 100 * 32 * 2) + 2 * (2 * 2 * 64 * 32 * 2));
}

TEST(TrainingSupport, BackendsWithoutBackwardSaySo) {
  const Case fwd = training_case("naive", Mode::fwd);
  EXPECT_TRUE(forward_only(fwd, "naive").ok);
  const Support s = forward_only(training_case("naive", Mode::bwd), "naive");
  EXPECT_FALSE(s.ok);
  EXPECT_NE(s.reason.find("backward not implemented yet for naive"), std::string::npos) << s.reason;
  // The CPU backends implement it.
  for (const char* name : {"cpu-naive", "cpu-flash"}) {
    EXPECT_TRUE(make_backend(name)->supports(training_case(name, Mode::fwd_bwd), TargetInfo{}).ok)
        << name;
  }
}

}  // namespace
}  // namespace fa2b
