// SPDX-License-Identifier: Apache-2.0
// `fa2bench compare`: match the cases of two results files (by id, or with --pair two backends'
// cases by shape), compute NEW/BASE ratios and judge each change against both runs' spread;
// render the comparison in several formats.
#pragma once

#include <cstdint>
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

// `--pair NEW_BACKEND=BASE_BACKEND`: the cases of backend `next` in NEW are matched with the
// cases of backend `base` in BASE by shape, so that two backends (ours and a peer's) are
// compared on the same shapes, from two files or from one.
struct BackendPair {
  std::string next;  // the backend judged, from NEW
  std::string base;  // the reference backend, from BASE
  // As written on the command line ("fa2=torch-flash"); ids and JUnit classnames use it.
  std::string key() const { return next + "=" + base; }
  // For people ("fa2 vs torch-flash").
  std::string label() const { return next + " vs " + base; }
  bool operator==(const BackendPair& o) const { return next == o.next && base == o.base; }
};

struct CompareOptions {
  double threshold = 0.05;  // relative change of the median time that still counts as `same`
  bool normalize = false;   // --normalize peak: compare pct_of_peak_flops instead of TFLOP/s
  // Empty: match by id, i.e. each backend with itself. (The `= {}` keeps `{threshold,
  // normalize}` free of -Wmissing-field-initializers.)
  std::vector<BackendPair> pairs = {};
  // --allow-missing: cases only in BASE, backends missing in NEW and cases missing from NEW's
  // config expansion are reported but do not count as failures.
  bool allow_missing = false;
  // --alpha: where both runs kept enough raw samples, slower/faster also needs the
  // Mann-Whitney U test's two-sided p-value below this.
  double alpha = 0.05;
};

// Which rule decided a verdict. utest: both runs kept at least kUTestMinSamples raw samples, so
// the median change must pass the threshold AND the Mann-Whitney U test's p-value be below
// alpha for faster/slower. threshold: too few raw samples on a side (or none: older files), so
// the threshold and the p10-p90 intervals decide as before. status: a run is not ok.
enum class VerdictRule { threshold, utest, status };
std::string_view to_string(VerdictRule);

enum class ChangeKind {
  same,       // within the threshold
  faster,     // beyond the threshold and significant (rule utest: p < alpha; rule threshold:
              // p10-p90 intervals disjoint), NEW faster
  slower,     // the same, NEW slower
  ambiguous,  // beyond the threshold, but not significant (p >= alpha, or intervals overlap),
              // or significant while a side's statistics kept throttled samples
  status,     // at least one run is not `ok`: the verdict names the status change
};
std::string_view to_string(ChangeKind);

// One case present in both files.
struct CaseComparison {
  std::string id;           // the case id; with --pair "fa2=torch-flash/<shape>"
  std::string backend;      // BASE's backend (geomean rows group by it)
  std::string new_backend;  // NEW's backend: `backend` unless compared with --pair
  CaseResult base, next;
  ChangeKind kind = ChangeKind::same;
  std::string verdict;  // "same", "faster", ..., or "ok→oom" for a status change
  // slower; ok in BASE and not ok in NEW; or ok in both and NEW's median unusable
  bool regression = false;
  double rel_change = kNaN;  // NEW median / BASE median - 1
  bool intervals_overlap = false;
  VerdictRule rule = VerdictRule::threshold;
  double p_value = kNaN;  // the U test's two-sided p-value; NaN where it did not apply
  // A significant change made `ambiguous` because a side's statistics kept samples taken under
  // a throttle reason (time_ms.throttled_at non-empty): never faster, slower or a regression.
  bool throttled = false;
  double time_ratio = kNaN;    // NEW / BASE median time
  double tflops_ratio = kNaN;  // NEW / BASE TFLOP/s (of pct_of_peak_flops with --normalize)
  double peak_ratio = kNaN;    // NEW / BASE peak bytes
};

// Geometric means of the ratios of one backend's cases that are ok in both runs; with --pair,
// of one pair's cases, for one head dim D or all of them.
struct GeomeanRow {
  std::string backend;      // BASE's backend
  std::string new_backend;  // NEW's backend: `backend` unless compared with --pair
  std::int64_t D = 0;       // with --pair: the head dim of the row's cases; 0: every head dim
  int n = 0;
  double time_ratio = kNaN;
  double tflops_ratio = kNaN;
};

struct VerdictCounts {
  int same = 0, faster = 0, slower = 0, ambiguous = 0, regressions = 0;
  int status = 0;       // the status differs between the runs (ok→oom, error→ok, ...)
  int not_ok_both = 0;  // the same status other than ok in both (oom→oom): nothing timed
  // Of not_ok_both, those in error or timeout (error→error): not a change, but NEW still
  // crashes, which fails the gates' rule; shown apart so the counts do not hide it.
  int failing_both = 0;
  int unusable = 0;  // ok in both, but NEW's median is missing, non-finite or <= 0
  // Of ambiguous, those that were significant but had a throttled side (CaseComparison).
  int throttled = 0;
};

// The run a side of the comparison came from.
struct RunInfo {
  std::string file;
  nlohmann::json device;
  nlohmann::json tool;
  std::string target;
  std::string config_path, config_sha256;
  double peak_tflops = kNaN;  // with --normalize: the device's fp16 peak (shown in headers)
};

struct Comparison {
  CompareOptions options;
  RunInfo base, next;
  std::vector<CaseComparison> cases;   // matched, in BASE order (with --pair, pair by pair)
  std::vector<std::string> only_base;  // case ids only in BASE
  std::vector<std::string> only_new;   // case ids only in NEW
  // With --pair, per entry of only_base / only_new: the backend of the other side, which has
  // no case of that shape. A shape can be one-sided in one pair and matched in another, so
  // the id alone would not say which comparison lacks it.
  std::vector<std::string> only_base_partner, only_new_partner;
  // Per backend, in order of first appearance; with --pair, per pair in the order given: one
  // row per head dim D (ascending), then the pair's row over every D.
  std::vector<GeomeanRow> geomean;
  VerdictCounts counts;
  std::vector<std::string> warnings;  // config sha256 differs, duplicate ids, ...
  // What makes NEW fail by the gates' one rule (checks/result_gate.h) beyond the matched
  // cases' verdicts, one line each: NEW has no cases or is interrupted; cases only in BASE, a
  // backend or cases of its config missing in NEW (unless allow_missing); a NEW case in
  // error/timeout, or an ok one without a required metric that no matched case reports.
  std::vector<std::string> failures;
  bool has_regression() const { return counts.regressions > 0 || !failures.empty(); }
  bool by_pair() const { return !options.pairs.empty(); }
};

// Compares two loaded results. Throws CompareError when --normalize cannot find a device's
// peak (the message names the device and the file).
// Why a comparison against BASE gives no verdict, whatever the workload: BASE holds no result,
// was interrupted (its missing results would go unnoticed), or none of its results matched in
// NEW had a usable measurement (`compared`: matched results ok in BASE with a usable median or
// step time). One line each; empty when BASE can be compared against.
std::vector<std::string> base_run_failures(const std::string& base_file, std::size_t base_results,
                                           bool base_interrupted, std::size_t compared);

Comparison compare_results(const ResultSet& base, const std::string& base_file,
                           const ResultSet& next, const std::string& new_file,
                           const CompareOptions& options);

// Parses --pair values ("NEW_BACKEND=BASE_BACKEND") and checks that NEW_BACKEND has cases in
// NEW and BASE_BACKEND in BASE; repeats are dropped. Throws CompareError with one line that
// names the value and the backends each file has.
std::vector<BackendPair> parse_backend_pairs(const std::vector<std::string>& values,
                                             const ResultSet& base, const std::string& base_file,
                                             const ResultSet& next, const std::string& new_file);
// The same from each file's backends (in order of first appearance); transformer results use
// it.
std::vector<BackendPair> parse_backend_pairs(const std::vector<std::string>& values,
                                             const std::vector<std::string>& base_backends,
                                             const std::string& base_file,
                                             const std::vector<std::string>& new_backends,
                                             const std::string& new_file);

// Verdict of one case pair (both runs' statuses, medians, p10-p90 intervals and, where both
// kept enough, raw samples; see VerdictRule).
struct ChangeVerdict {
  ChangeKind kind = ChangeKind::same;
  std::string text;
  bool regression = false;
  double rel_change = kNaN;
  bool intervals_overlap = false;
  VerdictRule rule = VerdictRule::threshold;
  double p_value = kNaN;
  bool throttled = false;  // faster/slower made ambiguous: a side kept throttled samples
};
ChangeVerdict judge_change(const CaseResult& base, const CaseResult& next, double threshold,
                           double alpha = 0.05);

// Adds one matched case's verdict to `counts` (results and transformer results alike).
void count_verdict(ChangeKind kind, Status base, Status next, bool regression,
                   VerdictCounts& counts);
// The geometric mean of positive ratios; NaN for none.
double geometric_mean(const std::vector<double>& v);

// Dense peak TFLOP/s of `dtype` on a device block: its "peak_tflops" (a number, or per dtype)
// when present, else the table of GPUs by name (core/gpu_peaks.h); nullopt when unknown (CPU
// blocks, unknown names, fp32).
std::optional<double> device_peak_tflops(const nlohmann::json& device, DType dtype = DType::fp16);
// A case's % of its device's dense peak: its recorded pct_of_peak_flops, else computed from
// `device` (older files); NaN when unknown or the case is not ok.
double pct_of_peak_flops(const CaseResult& r, const nlohmann::json& device);
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
