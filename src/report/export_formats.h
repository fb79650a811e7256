// Results in formats other tools read: google/benchmark's JSON (compare.py, github-action-
// benchmark and other dashboards take it unchanged) and nvbench's markdown table layout.
#pragma once

#include <string>

#include "core/result.h"

namespace fa2b {

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
