// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the check kinds (internal to src/checks/).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "checks/checks.h"
#include "config/config.h"
#include "core/result.h"

namespace fa2b::checks {

// One check kind's evaluation over measured results.
Verdict evaluate_threshold(const CheckSpec& spec, const std::vector<CaseResult>& results,
                           const CheckContext& ctx);
Verdict evaluate_ratio(const CheckSpec& spec, const std::vector<CaseResult>& results,
                       const CheckContext& ctx);
Verdict evaluate_growth(const CheckSpec& spec, const std::vector<CaseResult>& results,
                        const CheckContext& ctx);
Verdict evaluate_status(const CheckSpec& spec, const std::vector<CaseResult>& results,
                        const CheckContext& ctx);
Verdict evaluate_accuracy_rule(const CheckSpec& spec, const std::vector<CaseResult>& results,
                               const CheckContext& ctx);
Verdict evaluate_plan(const CheckSpec& spec, const std::vector<Case>& cases);

// Device-relative selection (`where`, config.h). Whether a case whose plan predicts `predicted`
// bytes is kept; true when the spec has no `where`.
bool where_keeps(const CheckSpec& spec, const CheckContext& ctx, std::int64_t predicted);
// Why `where` cannot be judged (no capacity recorded); empty when it can or the spec has none.
std::string where_unjudgeable(const CheckSpec& spec, const CheckContext& ctx);
// "fits 80 GiB (device memory)", for details.
std::string where_text(const CheckSpec& spec, const CheckContext& ctx);
// A case that did not run on this device: oom or unsupported (never error or timeout, which
// are failures a gate reports).
bool did_not_run(Status s);
// The `skipped` verdict of a check about other results than these: a `target` that is not the
// results' (a GPU speed claim on CPU results), or a `min_cc` above the CUDA device's the results
// ran on (a claim about a Hopper-only backend on an older card); nullopt when the check applies.
// Results whose target or capability is unknown are judged; so is the CPU target under min_cc
// (it runs every backend).
std::optional<Verdict> scope_skip(const CheckSpec& spec, const CheckContext& ctx);
// Marks `v` skipped with "n/a on this device: <why>" and returns it.
Verdict skipped_verdict(Verdict v, const std::string& why);
// The selected cases that `where` keeps; `outside` counts those it drops.
std::vector<const CaseResult*> select_where(const CheckSpec& spec, const CheckContext& ctx,
                                            const std::vector<CaseResult>& results,
                                            std::size_t& outside);
// The cases a single-case check (status, threshold) judges: its selection narrowed by `where`.
// Empty with `v` made the verdict when there are none: error when nothing is selected or
// `where` cannot be judged, skipped when `where` drops every selected case.
std::vector<const CaseResult*> judged_cases(const CheckSpec& spec, const CheckContext& ctx,
                                            const std::vector<CaseResult>& results, Verdict& v);

// A verdict with name, kind and threshold filled in from the spec; verdict `error` until set.
Verdict start_verdict(const CheckSpec& spec, std::string threshold);
// Marks `v` as an error with `detail` and returns it.
Verdict error_verdict(Verdict v, std::string detail);

bool known_op(const std::string& op);
// `value op bound`; false for NaN. "==" allows a relative difference of 1e-9.
bool compare(double value, const std::string& op, double bound);
// True when `a` is worse than `b` with respect to `op` and `bound` (larger for < and <=,
// smaller for > and >=, farther from the bound for ==).
bool worse(double a, double b, const std::string& op, double bound);
// "< 0.001"
std::string threshold_text(const std::string& op, double bound);
// A number for a one-line detail: shortest round-trip form; nan/inf spelled out.
std::string num(double v);

// Cases selected by the spec's selector, in results order.
std::vector<const CaseResult*> select(const CheckSpec& spec,
                                      const std::vector<CaseResult>& results);
// "{backend: [fa2], T: [2048]}" or "{} (every case)".
std::string describe_selector(const Selector& s);
// "no case matches the selection {…}"
std::string no_match_detail(const Selector& s);

// Role or backend name equals `name`.
bool is_backend(const Case& c, const std::string& name);
// Equal on every axis of the axis table that has `same` (core/axis_table.h): B, H, H_kv, T_q,
// T_k, D, dtype, causal, window, layout, mode, kv_layout, page_size, and for a variable-length
// batch the same lengths and packing; not the variant.
bool same_shape(const Case& a, const Case& b);
// The case of backend/role `backend` with the shape of `c`: one from c's sweep first, then
// any; nullptr when there is none.
const CaseResult* find_partner(const Case& c, const std::string& backend,
                               const std::vector<CaseResult>& results);

// The metric of a case or why there is none ("fa2/… is oom: needs 4 GiB", "fa2/… has no
// max_abs_err (not verified)", "unknown metric \"foo\"").
struct MetricOrWhy {
  std::optional<double> value;
  std::string why;
};
MetricOrWhy metric_of(const CaseResult& r, const std::string& metric);

// The measured values of a threshold or ratio check (attention and transformer results alike)
// against the spec's bound: how many fail, the worst and where it is, and the problems that
// keep a value from being measured.
struct BoundTally {
  std::size_t failing = 0, problems = 0;
  std::string first_problem;
  double worst = kNaN;
  std::string worst_at;  // the case id (threshold) or shape (ratio) of the worst value
  bool any = false;      // a value was added
  // Counts a problem; the first one is kept for the detail.
  void problem(std::string why);
  void add(double value, const CheckSpec& spec, const std::string& at);
  // n / d, or the problem that keeps it from being a ratio (a missing metric, d == 0 at
  // `den_id`).
  void add_ratio(const MetricOrWhy& n, const MetricOrWhy& d, const CheckSpec& spec,
                 const std::string& den_id, const std::string& at);
};
// The verdict of a threshold check over `selected` cases: an error when a case has no metric,
// else pass or fail by the worst value.
Verdict threshold_verdict(Verdict v, const CheckSpec& spec, const BoundTally& t,
                          std::size_t selected);
// The verdict of a ratio check over `pairs` numerator cases: an error when there are none or
// one has no ratio, else pass or fail by the worst ratio.
Verdict ratio_verdict(Verdict v, const CheckSpec& spec, const BoundTally& t, std::size_t pairs);

// The pairs of a ratio or accuracy_rule that `where` and `pairs: both_ran` leave out.
struct PairFilter {
  std::size_t outside = 0;            // a case of the pair is outside `where`
  std::size_t did_not_run_pairs = 0;  // both_ran: a case of the pair is oom or unsupported
  std::string first_did_not_run;      // "naive/... is oom (...)"
  // Whether the pair (a, b) is judged; counts it otherwise.
  bool keep(const CheckSpec& spec, const CheckContext& ctx, const CaseResult& a,
            const CaseResult& b);
  std::size_t dropped() const { return outside + did_not_run_pairs; }
  // Why fewer than min_pairs pairs are left ("0 of 4 selected pairs ran on both sides ...").
  std::string why_none(const CheckSpec& spec, const CheckContext& ctx, std::size_t counted) const;
  // "; 2 pairs left out (did not run): ..." for a pass or fail detail; empty when none.
  std::string note() const;
};

// "1 case", "3 cases".
std::string plural(std::size_t n, const std::string& word);
// Appends " (and N more)" when n > 0.
std::string and_more(std::size_t n);

}  // namespace fa2b::checks
