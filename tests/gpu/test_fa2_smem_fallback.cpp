// SPDX-License-Identifier: Apache-2.0
// fa2's tiles within a device's shared memory per block, on whatever GPU runs the tests: with
// FA2BENCH_FA2_SMEM_LIMIT lowered to sm_86's 99 KiB, the D = 224 forward on a large grid
// (whose own tile needs 128 KiB) runs the 96 KiB small-grid tile and still matches the
// reference; the D = 128 backward (its tuned tile needs 161 KiB) runs the 81 KiB compact tile
// and its gradients match the reference; the D = 160 backward, whose compact tile still needs
// 113 KiB, is `unsupported` naming the sizes, never launched. The choice itself is unit-tested
// per architecture (test_fa2_tile_choice.cpp).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "fa2/fa2_tile_choice.h"
#include "gpu_available.h"
#include "io/json_input.h"
#include "tool_binary.h"

namespace fa2b {
namespace {

TEST(GpuFa2SmemLimit, FallsBackOrRefusesUnder99KiB) {
  FA2B_REQUIRE_GPU();
  const auto dir = std::filesystem::temp_directory_path() / "fa2bench_gpu_smem_limit";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  // B * H * T / 128 = 1024 query tiles: the large-grid class on any GPU below 256 SMs.
  const nlohmann::json config = {
      {"name", "smem_limit"},
      {"measure",
       {{"warmup", 0}, {"min_samples", 2}, {"max_samples", 2}, {"max_time_s", 1}, {"seed", 3}}},
      {"defaults", {{"B", 4}, {"H", 16}, {"T", 2048}, {"dtype", "fp16"}, {"layout", "bhsd"}}},
      {"sweeps",
       {{{"name", "fwd"}, {"backends", {"fa2"}}, {"grid", {{"D", 224}, {"causal", {false, true}}}}},
        {{"name", "bwd"},
         {"backends", {"fa2"}},
         {"grid", {{"D", {128, 160}}, {"mode", "fwd_bwd"}, {"causal", {false, true}}}}}}},
      {"checks", nlohmann::json::array()}};
  std::ofstream(dir / "config.json") << config.dump(1);
  const std::string cmd = "FA2BENCH_FA2_SMEM_LIMIT=" + std::to_string(kSmemOptinSm86) + " " +
                          fa2bench_binary() + " sweep --config " + (dir / "config.json").string() +
                          " --target cuda --quiet --out " + (dir / "out").string() +
                          " > /dev/null 2>&1";
  const int rc = std::system(cmd.c_str());
  ASSERT_NE(rc, -1);
  std::ifstream in(dir / "out" / "results.json");
  ASSERT_TRUE(in) << "no results.json (exit status " << rc << ")";
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const auto j = parse_json_input(text, (dir / "out" / "results.json").string());
  ASSERT_EQ(j["cases"].size(), 6u);
  int forward = 0, backward = 0, refused = 0;
  for (const auto& c : j["cases"]) {
    if (c["params"]["mode"] == "fwd") {
      ++forward;
      ASSERT_EQ(c["status"], "ok") << c.dump();
      EXPECT_LT(c["accuracy"]["max_abs_err"].get<double>(), 2e-3) << c.dump();
    } else if (c["params"]["D"] == 128) {
      ++backward;
      ASSERT_EQ(c["status"], "ok") << c.dump();
      const auto& a = c["accuracy"];
      EXPECT_TRUE(a["grads_checked"].get<bool>()) << c.dump();
      for (const char* g : {"rel_l2_err_dq", "rel_l2_err_dk", "rel_l2_err_dv"}) {
        EXPECT_LT(a[g].get<double>(), 1e-2) << g << " " << c.dump();
      }
      EXPECT_EQ(a["nonfinite_grad"], 0) << c.dump();
    } else {
      ++refused;
      EXPECT_EQ(c["status"], "unsupported") << c.dump();
      const std::string reason = c.value("reason", "");
      EXPECT_NE(reason.find("113 KiB of shared memory per block"), std::string::npos) << reason;
      EXPECT_NE(reason.find("99 KiB"), std::string::npos) << reason;
    }
  }
  EXPECT_EQ(forward, 2);
  EXPECT_EQ(backward, 2);
  EXPECT_EQ(refused, 2);
}

}  // namespace
}  // namespace fa2b
