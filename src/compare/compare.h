// `fa2bench compare`: match the cases of two results files, compute NEW/BASE ratios and
// judge each change against both runs' spread; render the comparison in several formats.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/result.h"

namespace fa2b {

// A comparison that cannot be made (e.g. --normalize on a device with no known peak).
class CompareError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CompareOptions {
  double threshold = 0.05;  // relative change of the median time that still counts as `same`
  bool normalize = false;   // divide each run's TFLOP/s by its device's peak
};

enum class ChangeKind {
  same,       // within the threshold
  faster,     // beyond the threshold, p10-p90 intervals disjoint, NEW faster
  slower,     // beyond the threshold, p10-p90 intervals disjoint, NEW slower
  ambiguous,  // beyond the threshold, but the intervals overlap
  status,     // at least one run is not `ok`: the verdict names the status change
};
std::string_view to_string(ChangeKind);

// One case present in both files.
struct CaseComparison {
  std::string id;
  std::string backend;  // the case's backend (geomean rows group by it)
  CaseResult base, next;
  ChangeKind kind = ChangeKind::same;
  std::string verdict;       // "same", "faster", ..., or "ok→oom" for a status change
  bool regression = false;   // slower, or ok in BASE and not ok in NEW
  double rel_change = kNaN;  // NEW median / BASE median - 1
  bool intervals_overlap = false;
  double time_ratio = kNaN;    // NEW / BASE median time
  double tflops_ratio = kNaN;  // NEW / BASE TFLOP/s (normalized by device peak with --normalize)
  double peak_ratio = kNaN;    // NEW / BASE peak bytes
};

// Geometric means of the ratios of one backend's cases that are ok in both runs.
struct GeomeanRow {
  std::string backend;
  int n = 0;
  double time_ratio = kNaN;
  double tflops_ratio = kNaN;
};

struct VerdictCounts {
  int same = 0, faster = 0, slower = 0, ambiguous = 0, status = 0, regressions = 0;
};

// The run a side of the comparison came from.
struct RunInfo {
  std::string file;
  nlohmann::json device;
  nlohmann::json tool;
  std::string target;
  std::string config_path, config_sha256;
  double peak_tflops = kNaN;  // with --normalize: the device's peak used
};

struct Comparison {
  CompareOptions options;
  RunInfo base, next;
  std::vector<CaseComparison> cases;   // matched, in BASE order
  std::vector<std::string> only_base;  // case ids only in BASE
  std::vector<std::string> only_new;   // case ids only in NEW
  std::vector<GeomeanRow> geomean;     // per backend, in order of first appearance
  VerdictCounts counts;
  std::vector<std::string> warnings;  // config sha256 differs, duplicate ids, ...
  bool has_regression() const { return counts.regressions > 0; }
};

// Compares two loaded results. Throws CompareError when --normalize cannot find a device's
// peak (the message names the device and the file).
Comparison compare_results(const ResultSet& base, const std::string& base_file,
                           const ResultSet& next, const std::string& new_file,
                           const CompareOptions& options);

// Verdict of one case pair (both runs' statuses, medians and p10-p90 intervals).
struct ChangeVerdict {
  ChangeKind kind = ChangeKind::same;
  std::string text;
  bool regression = false;
  double rel_change = kNaN;
  bool intervals_overlap = false;
};
ChangeVerdict judge_change(const CaseResult& base, const CaseResult& next, double threshold);

// Dense peak TFLOP/s of a device block: its "peak_tflops" when present, else a small built-in
// table by name (H200 and H100 SXM 989, A100 312, L4 121); nullopt when unknown.
std::optional<double> device_peak_tflops(const nlohmann::json& device);
// The device's name for messages ("unknown device" when it has none).
std::string device_name(const nlohmann::json& device);

// Renderings. `table` is for a terminal (aligned columns), `md` a GitHub table with the
// geomean and verdict counts, `csv` one row per case, `json` everything machine-readable.
std::string compare_table_text(const Comparison& c);
std::string compare_md_text(const Comparison& c);
std::string compare_csv_text(const Comparison& c);
nlohmann::ordered_json compare_json(const Comparison& c);
std::string compare_junit_text(const Comparison& c);       // one testcase per matched case
std::string compare_summary_md_text(const Comparison& c);  // a job summary (headline + md)

}  // namespace fa2b
