// SPDX-License-Identifier: Apache-2.0
// Results in formats other tools read: google/benchmark's JSON (compare.py, github-action-
// benchmark and other dashboards take it unchanged) and nvbench's markdown table layout.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/result.h"

namespace fa2b {

// A field of a results file's free-form block (tool, host, device), or `fallback` where the
// block, the field or its type is not there (older or hand-made files).
template <typename V>
V block_field(const nlohmann::json& block, const char* key, V fallback) {
  if (!block.is_object()) return fallback;
  const auto it = block.find(key);
  if (it == block.end()) return fallback;
  try {
    return it->get<V>();
  } catch (const nlohmann::json::exception&) {
    return fallback;
  }
}

// google/benchmark JSON: a "context" block and one "benchmarks" entry per case, named
// "fa2bench/<case id>", run_type "iteration", real_time = cpu_time = the median GPU (or CPU
// target) time in ms, iterations = timed samples; counters: tflops, gbps, peak_bytes,
// max_abs_err (and the gradient errors in training modes). A case not ok gets error_occurred
// and error_message ("<status>: <reason>"), as google/benchmark marks a skipped run.
std::string gbench_json_text(const ResultSet& rs);

// nvbench's markdown layout: "# Benchmark Results", one "## <sweep>" per sweep, "### [i] <device>"
// and a table of the case's axes, Samples, GPU Time (median, in nvbench's unit style), Noise
// (stdev / mean), TFLOP/s and Peak Mem; cases not ok list their status in place of the times.
std::string nvbench_md_text(const ResultSet& rs);

}  // namespace fa2b
