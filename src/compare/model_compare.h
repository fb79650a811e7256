// SPDX-License-Identifier: Apache-2.0
// `fa2bench compare` on transformer results (kind "fa2bench-model-results"): cases matched by
// id, or with --pair by the shape key (the id after the backend), and per match the NEW/BASE
// ratios of peak bytes, step time and tokens/s plus both statuses. A training step has no
// p10-p90 spread, so a verdict is the step-time change against --threshold alone.
#pragma once

#include <string>
#include <vector>

#include "compare/compare.h"
#include "io/model_results.h"

namespace fa2b {

struct ModelCaseComparison {
  std::string id;  // the case id; with --pair "fa2=torch-flash/<shape key>"
  std::string shape_key;
  ModelCaseRecord base, next;
  ChangeKind kind = ChangeKind::same;  // same, faster, slower or status
  std::string verdict;                 // "same", "slower", "ok→oom", ...
  bool regression = false;             // slower, or ok in BASE and not ok in NEW
  double peak_ratio = kNaN;            // NEW / BASE peak bytes (both ok)
  double step_ratio = kNaN;            // NEW / BASE step_ms (both ok)
  double tokens_ratio = kNaN;          // NEW / BASE tokens/s (both ok)
};

// Geometric means over one pair's (or backend's) cases that are ok in both files.
struct ModelGeomeanRow {
  std::string backend, new_backend;
  int n = 0;
  double peak_ratio = kNaN, step_ratio = kNaN, tokens_ratio = kNaN;
};

struct ModelComparison {
  CompareOptions options;  // threshold, pairs, allow_missing (normalize is refused)
  std::string base_file, new_file;
  nlohmann::json base_device, new_device;
  std::vector<ModelCaseComparison> cases;  // in BASE order, pair by pair
  std::vector<std::string> only_base, only_new;
  std::vector<ModelGeomeanRow> geomean;
  VerdictCounts counts;
  std::vector<std::string> warnings;
  // As Comparison::failures: NEW interrupted or empty, a compared NEW case in error/timeout,
  // cases only in BASE or a backend missing in NEW (unless allow_missing).
  std::vector<std::string> failures;
  bool has_regression() const { return counts.regressions > 0 || !failures.empty(); }
  bool by_pair() const { return !options.pairs.empty(); }
};

// The backends of a file's cases, in order of first appearance (for --pair checks).
std::vector<std::string> model_backends(const ModelResultSet& rs);

ModelComparison compare_model_results(const ModelResultSet& base, const ModelResultSet& next,
                                      const CompareOptions& options);

std::string model_compare_table_text(const ModelComparison& c);
std::string model_compare_md_text(const ModelComparison& c);
std::string model_compare_csv_text(const ModelComparison& c);
nlohmann::ordered_json model_compare_json(const ModelComparison& c);

}  // namespace fa2b
