// SPDX-License-Identifier: Apache-2.0
// Case isolation on a GPU: a kernel that writes through a null pointer (faulty-cuda, in the
// test binary fa2bench_faulty) is recorded as an error with the CUDA message, and the next
// case runs in a fresh process with a fresh context and succeeds.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "gpu_available.h"
#include "io/json_input.h"

namespace fa2b {
namespace {

TEST(GpuIsolation, IllegalAddressCostsOneCaseOnly) {
  FA2B_REQUIRE_GPU();
  const auto dir = std::filesystem::temp_directory_path() / "fa2bench_gpu_isolation";
  std::filesystem::remove_all(dir);
  const std::string cmd =
      std::string(FA2BENCH_FAULTY_BINARY) + " sweep --config " + FA2BENCH_SOURCE_DIR +
      "/tests/data/tiny_cpu.json --target cuda" + " --isolate --quiet --backends faulty-cuda,fa2" +
      " --filter 'T16-D32/fp16/causal' --out " + dir.string() + " > /dev/null 2>&1";
  const int rc = std::system(cmd.c_str());
  ASSERT_NE(rc, -1);
  std::ifstream in(dir / "results.json");
  ASSERT_TRUE(in) << "no results.json (exit status " << rc << ")";
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  // Through the parser (and limits) every results file fa2bench reads goes through.
  const auto j = parse_json_input(text, (dir / "results.json").string());
  ASSERT_EQ(j["cases"].size(), 2u);
  const auto& bad = j["cases"][0];
  const auto& good = j["cases"][1];
  EXPECT_EQ(bad["backend"], "faulty-cuda");
  EXPECT_EQ(bad["status"], "error");
  const std::string reason = bad["reason"];
  EXPECT_NE(reason.find("illegal"), std::string::npos) << reason;
  EXPECT_EQ(good["backend"], "fa2");
  EXPECT_EQ(good["status"], "ok") << good["reason"];
  EXPECT_EQ(j["target"], "cuda");
  EXPECT_TRUE(j["device"].contains("name"));
}

}  // namespace
}  // namespace fa2b
