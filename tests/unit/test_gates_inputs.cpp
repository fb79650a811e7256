// SPDX-License-Identifier: Apache-2.0
// Issue 41 (gates, round two), the reading side: duplicate case ids and impossible values in
// results files, input files that are not regular, too large or hold a NUL byte, --set values
// with duplicate keys, and a length distribution asked for more sequences than can exist.
// Every refusal is an exception the commands turn into exit 2, naming the file and the place.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "compare_fixtures.h"
#include "config/config.h"
#include "config_errors.h"
#include "io/input_file.h"
#include "io/model_results.h"
#include "io/results_json.h"
#include "model_compare_fixtures.h"

namespace fa2b {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path fresh_dir(const std::string& name) {
  const auto p =
      fs::temp_directory_path() / ("fa2bench_gates_in_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

void write(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

// The message of `f`'s ResultsFileError; fails the test when it throws none.
template <class F>
std::string results_error(F f) {
  try {
    f();
  } catch (const ResultsFileError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no ResultsFileError";
  return "";
}

template <class F>
std::string config_error(F f) {
  try {
    f();
  } catch (const ConfigError& e) {
    std::string all;
    for (const auto& m : e.messages()) all += m + "\n";
    return all;
  }
  ADD_FAILURE() << "no ConfigError";
  return "";
}

#define EXPECT_HAS(text, sub) EXPECT_NE((text).find(sub), std::string::npos) << (text)

// A sound two-case attention results document (one fa2, one naive case).
json two_cases() {
  ResultSet rs;
  rs.schema = kResultsSchema;
  rs.cases.push_back(crafted_case("fa2", 1024, 64, 1.0, 0.01, Status::ok, 1000));
  rs.cases.push_back(crafted_case("naive", 1024, 64, 3.0, 0.01, Status::ok, 5000));
  for (CaseResult& r : rs.cases) {
    r.accuracy.max_abs_err = 1e-4;
    r.accuracy.rows_checked = 4;
  }
  return to_json(rs);
}

// ---- defect 5: a case twice in one file ----

TEST(GatesInputs, DupCaseIdsRefusedInAttentionResults) {
  const auto dir = fresh_dir("dup");
  json j = two_cases();
  ASSERT_NO_THROW(result_set_from_json(j));
  // The slower copy second: compare took the first, a check saw both.
  json slow = j["cases"][0];
  slow["time_ms"]["median"] = 10.0;
  j["cases"].push_back(slow);
  write(dir / "dup.json", j.dump());
  const std::string msg = results_error([&] { load_results((dir / "dup.json").string()); });
  EXPECT_HAS(msg, (dir / "dup.json").string() + ": /cases/2: duplicate case id \"fa2/");
  EXPECT_HAS(msg, "also at /cases/0");
  // The same id in two sweeps is two cases.
  j["cases"][2]["sweep"] = "other";
  EXPECT_NO_THROW(result_set_from_json(j));
}

TEST(GatesInputs, DupCaseIdsRefusedInTransformerResults) {
  const auto dir = fresh_dir("dup_model");
  json j = model_results_json({model_case_json("fa2", 64, "ok", 1000, 2.0, 100.0),
                               model_case_json("naive", 64, "ok", 2000, 3.0, 50.0)});
  ASSERT_NO_THROW(model_result_set_from_json(j, "m.json"));
  j["cases"].push_back(model_case_json("fa2", 64, "ok", 1000, 20.0, 10.0));
  write(dir / "m.json", j.dump());
  const std::string msg = results_error([&] { load_model_results((dir / "m.json").string()); });
  EXPECT_HAS(msg, "m.json: /cases/2: duplicate case id \"fa2/L2-h64-nh4-V97-B2-T64/fp32/adamw\"");
  EXPECT_HAS(msg, "also at /cases/0");
}

// ---- defect 7: values no measurement can have ----

TEST(GatesInputs, ImpossibleValuesRefusedInAttentionResults) {
  const json base = two_cases();
  struct Bad {
    const char* pointer;
    json value;
  };
  const Bad bad[] = {
      {"/cases/0/accuracy/max_abs_err", -1},
      {"/cases/0/accuracy/max_abs_err", "-inf"},
      {"/cases/0/accuracy/mean_abs_err", -1e-9},
      {"/cases/0/accuracy/rel_l2_err", -0.5},
      {"/cases/0/accuracy/nonfinite", -1},
      {"/cases/0/accuracy/rows_checked", -3},
      {"/cases/0/memory/peak_bytes", -1},
      {"/cases/0/memory/predicted_bytes", -1},
      {"/cases/0/memory/workspace_bytes", -8},
      {"/cases/0/time_ms/median", -1},
      {"/cases/0/time_ms/p10", "-inf"},
      {"/cases/0/time_ms/n", -2},
      {"/cases/0/time_ms/samples", json::array({1.0, -1.0})},
      {"/cases/0/time_ms/samples", json::array({1.0, "inf"})},
      {"/cases/0/tflops", -3.0},
      {"/cases/0/gbps", "-inf"},
      {"/cases/0/pct_of_peak_flops", -1},
      {"/cases/0/flops", -1},
      {"/cases/0/measure/max_time_s", "inf"},
      {"/cases/0/params/B", 0},
      {"/cases/0/params/D", -64},
  };
  for (const Bad& b : bad) {
    json j = base;
    j[json::json_pointer(b.pointer)] = b.value;
    std::string where = b.pointer;
    if (where.find("/samples") != std::string::npos) where += "/1";
    const std::string msg = results_error([&] { result_set_from_json(j); });
    EXPECT_HAS(msg, where + ":") << " for " << b.value.dump();
  }
  // What a measurement can be still loads: 0, +inf errors of an output with inf, null.
  json ok = base;
  ok["cases"][0]["accuracy"]["max_abs_err"] = "inf";
  ok["cases"][0]["accuracy"]["mean_abs_err"] = nullptr;
  ok["cases"][0]["memory"]["requested_bytes"] = 0;
  ok["cases"][0]["device_index"] = -1;
  // "-inf" still reads where a value may be negative: a check's own measured quantity.
  ok["checks"] = json::array({{{"name", "c"}, {"verdict", "fail"}, {"measured", "-inf"}}});
  const ResultSet back = result_set_from_json(ok);
  ASSERT_EQ(back.checks.size(), 1u);
  EXPECT_TRUE(std::isinf(back.checks[0].measured) && back.checks[0].measured < 0);
}

TEST(GatesInputs, ImpossibleValuesRefusedInTransformerResults) {
  const json base = model_results_json({model_case_json("fa2", 64, "ok", 1000, 2.0, 100.0),
                                        model_case_json("naive", 64, "oom", 0, 0, 0)});
  ASSERT_NO_THROW(model_result_set_from_json(base, "m.json"));
  const char* const bad[] = {
      "/cases/1/memory/peak_bytes",      "/cases/0/memory/predicted_bytes",
      "/cases/1/memory/requested_bytes", "/cases/0/timing/forward_ms",
      "/cases/0/timing/backward_ms",     "/cases/0/timing/optimizer_ms",
      "/cases/1/timing/step_ms",         "/cases/0/timing/steps",
      "/cases/1/metrics/tokens_per_s",   "/cases/0/metrics/tflops",
  };
  for (const char* pointer : bad) {
    json j = base;
    j[json::json_pointer(pointer)] = -1;
    const std::string msg = results_error([&] { model_result_set_from_json(j, "m.json"); });
    EXPECT_HAS(msg, std::string("m.json: ") + pointer + ":");
  }
}

// ---- defect 9: input files that are not regular, or too large ----

TEST(GatesInputs, NonRegularInputFilesRefusedAtOnce) {
  const auto dir = fresh_dir("fifo");
  const std::string fifo = (dir / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto start = std::chrono::steady_clock::now();
  // Each of these blocked forever (no writer) or read until memory ran out (/dev/zero).
  EXPECT_HAS(results_error([&] { load_results(fifo); }), fifo + ": is a FIFO");
  EXPECT_HAS(results_error([&] { load_model_results(fifo); }), fifo + ": is a FIFO");
  EXPECT_HAS(config_error([&] { load_config(fifo); }), fifo + ": is a FIFO");
  EXPECT_HAS(config_error([&] { load_config("/dev/zero"); }),
             "/dev/zero: is a character device; fa2bench reads only regular files");
  EXPECT_HAS(results_error([&] { load_results("/dev/zero"); }), "/dev/zero: is a character");
  EXPECT_HAS(results_error([&] { load_results(dir.string()); }), ": is a directory");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST(GatesInputs, OversizedInputFilesRefusedBeforeReading) {
  const auto dir = fresh_dir("big");
  // Sparse: no disk used, and a reader that slurps it would allocate 1 GiB first.
  const fs::path big = dir / "big.json";
  write(big, "{}");
  fs::resize_file(big, kMaxResultsBytes + 1);
  EXPECT_HAS(results_error([&] { load_results(big.string()); }),
             "big.json: is 1073741825 bytes, more than the 1024 MiB fa2bench reads");
  fs::resize_file(big, kMaxConfigBytes + 1);
  EXPECT_HAS(config_error([&] { load_config(big.string()); }), "more than the 256 MiB");
}

// ---- defect 12: bytes after a NUL were ignored; --set values kept the last duplicate key ----

TEST(GatesInputs, NulByteInConfigOrResultsRefusedNamingTheOffset) {
  const auto dir = fresh_dir("nul");
  const std::string text = two_cases().dump();
  write(dir / "r.json", text + std::string(1, '\0') + "garbage");
  EXPECT_HAS(results_error([&] { load_results((dir / "r.json").string()); }),
             "r.json: holds a NUL byte at byte offset " + std::to_string(text.size()));
  const std::string cfg = R"({"name": "n", "defaults": {"H": 1, "D": 32, "T": 16},
    "sweeps": [{"name": "s", "backends": ["cpu-naive"]}]})";
  write(dir / "c.json", cfg);
  ASSERT_NO_THROW(load_config((dir / "c.json").string()));
  write(dir / "c.json", cfg + std::string(1, '\0') + "{\"x\": ");
  EXPECT_HAS(config_error([&] { load_config((dir / "c.json").string()); }),
             "c.json: holds a NUL byte at byte offset " + std::to_string(cfg.size()));
}

TEST(GatesInputs, SetValueWithDuplicateKeysRefused) {
  const json cfg = json::parse(R"({"name": "n", "defaults": {"H": 1, "D": 32, "T": 16},
    "sweeps": [{"name": "s", "backends": ["cpu-naive"]}]})");
  ConfigOverrides o;
  o.set = {R"(measure={"max_samples": 5, "max_samples": 7})"};
  EXPECT_TRUE(test_config::has_error(
      cfg,
      R"(--set "measure={"max_samples": 5, "max_samples": 7}": /max_samples: duplicate key "max_samples")",
      o));
}

// ---- defect 8: B bounded before a distribution draws B lengths ----

TEST(GatesInputs, VarlenDistributionBoundsBBeforeDrawing) {
  json cfg = json::parse(R"({"name": "v", "defaults": {"H": 1, "D": 64, "B": 3000000000},
    "sweeps": [{"name": "s", "backends": ["cpu-flash"],
                "grid": {"lengths": {"dist": "uniform", "min": 1, "max": 8, "seed": 1}}}]})");
  const auto start = std::chrono::steady_clock::now();
  // Was std::bad_alloc (exit 3) at 3e9, 14 s and 4.8 GB at 2e8.
  EXPECT_TRUE(test_config::has_error(cfg, "/defaults/B: B = 3000000000 sequences"));
  cfg["defaults"]["B"] = 200000000;
  EXPECT_TRUE(test_config::has_error(cfg, "/defaults/B: B = 200000000 sequences"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  // In a sweep's grid the grid's pointer is named; min * B beyond 32-bit offsets is refused too.
  cfg["defaults"].erase("B");
  cfg["sweeps"][0]["grid"]["B"] = {1000000};
  cfg["sweeps"][0]["grid"]["lengths"]["min"] = 4096;
  cfg["sweeps"][0]["grid"]["lengths"]["max"] = 8192;
  EXPECT_TRUE(test_config::has_error(cfg, "/sweeps/0/grid/B: B = 1000000 sequences of at least"));
  // A real batch still draws.
  cfg["sweeps"][0]["grid"]["B"] = {64};
  EXPECT_TRUE(test_config::errors_of(cfg).empty());
}

}  // namespace
}  // namespace fa2b
