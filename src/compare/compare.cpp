// SPDX-License-Identifier: Apache-2.0
// Matching cases of two results files (by id, or by shape for --pair), ratios, verdicts and
// geometric means.
#include "compare/compare.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "checks/config_echo.h"
#include "checks/result_gate.h"
#include "compare/mann_whitney.h"
#include "config/config.h"
#include "core/tool_block.h"

namespace fa2b {
namespace {

bool finite_positive(double v) {
  return std::isfinite(v) && v > 0;
}

// "time_ms.median is inf" for a median that cannot be judged by.
std::string median_text(double median) {
  if (std::isnan(median)) return "time_ms.median is missing";
  return fmt::format("time_ms.median is {}", median);
}

double ratio(double num, double den) {
  return finite_positive(num) && finite_positive(den) ? num / den : kNaN;
}

// The raw samples of a run that a rank test can use.
std::vector<double> finite_samples(const TimeStats& t) {
  std::vector<double> out;
  for (double x : t.samples) {
    if (std::isfinite(x)) out.push_back(x);
  }
  return out;
}

// The p10-p90 interval of a run; the median alone when the percentiles are missing.
std::pair<double, double> interval(const TimeStats& t) {
  double lo = std::isfinite(t.p10) ? t.p10 : t.median;
  double hi = std::isfinite(t.p90) ? t.p90 : t.median;
  if (lo > hi) std::swap(lo, hi);
  return {lo, hi};
}

// "BASE 12 of 40 samples under a throttle reason" for the sides whose statistics kept throttled
// samples (time_ms.throttled_at); empty when neither did.
std::string throttled_text(const TimeStats& base, const TimeStats& next) {
  std::vector<std::string> sides;
  for (const auto& [name, t] : {std::pair<const char*, const TimeStats*>{"BASE", &base},
                                std::pair<const char*, const TimeStats*>{"NEW", &next}}) {
    if (t->throttled_at.empty()) continue;
    sides.push_back(fmt::format("{} {} of {}", name, t->throttled_at.size(), t->n));
  }
  if (sides.empty()) return "";
  return fmt::format("{} samples under a throttle reason", fmt::join(sides, ", "));
}

RunInfo run_info(const ResultSet& rs, const std::string& file) {
  RunInfo info;
  info.file = file;
  info.device = rs.device;
  info.tool = rs.tool;
  info.target = rs.target;
  info.config_path = rs.config_path;
  info.config_sha256 = rs.config_sha256;
  return info;
}

// The key two cases are matched by: the id (backend + shape), or with --pair the shape alone,
// since the two backends of a pair differ by design.
std::string match_key(const CaseResult& r, bool by_shape) {
  return by_shape ? r.c.shape_key() : r.c.id();
}

// A case's identity within one file: two sweeps of a config may hold the same shape.
std::string sweep_key(const CaseResult& r, bool by_shape = false) {
  return r.c.sweep + "\x1f" + match_key(r, by_shape);
}

// The cases of a file without repeats of (sweep, id); repeats are reported.
std::vector<const CaseResult*> unique_cases(const ResultSet& rs, const std::string& file,
                                            std::vector<std::string>& warnings) {
  std::set<std::string> seen;
  std::vector<const CaseResult*> out;
  for (const CaseResult& r : rs.cases) {
    if (seen.insert(sweep_key(r)).second) {
      out.push_back(&r);
    } else {
      warnings.push_back(
          fmt::format("{}: duplicate case id {} (the first is compared)", file, r.c.id()));
    }
  }
  return out;
}

// Cases that are matched with each other: everything (by id), or one --pair's two backends.
struct MatchGroup {
  std::vector<const CaseResult*> base, next;
  const BackendPair* pair = nullptr;  // null: by id
};

std::vector<const CaseResult*> of_backend(const std::vector<const CaseResult*>& cases,
                                          const std::string& backend) {
  std::vector<const CaseResult*> out;
  for (const CaseResult* r : cases) {
    if (r->c.backend == backend) out.push_back(r);
  }
  return out;
}

std::vector<MatchGroup> match_groups(const std::vector<const CaseResult*>& base,
                                     const std::vector<const CaseResult*>& next,
                                     const std::vector<BackendPair>& pairs) {
  if (pairs.empty()) return {MatchGroup{base, next, nullptr}};
  std::vector<MatchGroup> groups;
  for (const BackendPair& p : pairs) {
    groups.push_back(MatchGroup{of_backend(base, p.base), of_backend(next, p.next), &p});
  }
  return groups;
}

// For each BASE case of the group, the index of its NEW partner. When a key appears in several
// sweeps of a file, cases of the same sweep pair up first; what is left pairs by key alone, in
// file order.
std::vector<std::optional<std::size_t>> match_cases(const MatchGroup& g) {
  const bool by_shape = g.pair != nullptr;
  std::map<std::string, std::size_t> new_by_sweep_key;
  std::multimap<std::string, std::size_t> new_by_key;
  for (std::size_t i = 0; i < g.next.size(); ++i) {
    new_by_sweep_key.emplace(sweep_key(*g.next[i], by_shape), i);
    new_by_key.emplace(match_key(*g.next[i], by_shape), i);
  }
  std::vector<bool> new_used(g.next.size(), false);
  std::vector<std::optional<std::size_t>> partner(g.base.size());
  for (std::size_t i = 0; i < g.base.size(); ++i) {
    const auto it = new_by_sweep_key.find(sweep_key(*g.base[i], by_shape));
    if (it != new_by_sweep_key.end()) {
      partner[i] = it->second;
      new_used[it->second] = true;
    }
  }
  for (std::size_t i = 0; i < g.base.size(); ++i) {
    if (partner[i]) continue;
    const auto [lo, hi] = new_by_key.equal_range(match_key(*g.base[i], by_shape));
    for (auto it = lo; it != hi; ++it) {
      if (new_used[it->second]) continue;
      partner[i] = it->second;
      new_used[it->second] = true;
      break;
    }
  }
  return partner;
}

// One matched pair of cases: verdict and ratios.
CaseComparison compare_case(const CaseResult& b, const CaseResult& n, const BackendPair* pair,
                            const Comparison& cmp) {
  CaseComparison cc;
  cc.id = pair ? pair->key() + "/" + b.c.shape_key() : b.c.id();
  cc.backend = b.c.backend;
  cc.new_backend = n.c.backend;
  cc.base = b;
  cc.next = n;
  const ChangeVerdict v = judge_change(b, n, cmp.options.threshold, cmp.options.alpha);
  cc.kind = v.kind;
  cc.verdict = v.text;
  cc.regression = v.regression;
  cc.rel_change = v.rel_change;
  cc.intervals_overlap = v.intervals_overlap;
  cc.rule = v.rule;
  cc.p_value = v.p_value;
  cc.throttled = v.throttled;
  if (b.status == Status::ok && n.status == Status::ok) {
    cc.time_ratio = ratio(n.time.median, b.time.median);
    cc.tflops_ratio = ratio(n.tflops, b.tflops);
    if (cmp.options.normalize) {
      cc.tflops_ratio =
          ratio(pct_of_peak_flops(n, cmp.next.device), pct_of_peak_flops(b, cmp.base.device));
    }
  }
  cc.peak_ratio =
      ratio(static_cast<double>(n.memory.peak_bytes), static_cast<double>(b.memory.peak_bytes));
  return cc;
}

void count_case(const CaseComparison& cc, VerdictCounts& counts) {
  count_verdict(cc.kind, cc.base.status, cc.next.status, cc.regression, counts);
  if (cc.kind == ChangeKind::ambiguous && cc.regression) ++counts.unusable;
  if (cc.throttled) ++counts.throttled;
}

// Geometric means of the ratios of `cases` that have one (both runs ok).
GeomeanRow geomean_row(GeomeanRow row, const std::vector<const CaseComparison*>& cases) {
  std::vector<double> time, tflops;
  for (const CaseComparison* cc : cases) {
    if (finite_positive(cc->time_ratio)) time.push_back(cc->time_ratio);
    if (finite_positive(cc->tflops_ratio)) tflops.push_back(cc->tflops_ratio);
  }
  row.n = static_cast<int>(time.size());
  row.time_ratio = geometric_mean(time);
  row.tflops_ratio = geometric_mean(tflops);
  return row;
}

// Rows per (BASE backend, NEW backend) in order of first appearance. With --pair each pair
// also gets a row per head dim: a kernel's speed depends on D far more than on the rest of the
// shape, so one mean over all D can hide a head dim where NEW loses.
std::vector<GeomeanRow> geomean_rows(const std::vector<CaseComparison>& cases, bool by_pair) {
  std::vector<std::vector<const CaseComparison*>> groups;
  std::map<std::pair<std::string, std::string>, std::size_t> group_index;
  for (const CaseComparison& cc : cases) {
    const auto [it, added] =
        group_index.emplace(std::pair{cc.backend, cc.new_backend}, groups.size());
    if (added) groups.emplace_back();
    groups[it->second].push_back(&cc);
  }
  std::vector<GeomeanRow> rows;
  for (const auto& group : groups) {
    GeomeanRow all;
    all.backend = group.front()->backend;
    all.new_backend = group.front()->new_backend;
    if (by_pair) {
      std::map<std::int64_t, std::vector<const CaseComparison*>> by_dim;
      for (const CaseComparison* cc : group) by_dim[cc->base.c.D].push_back(cc);
      for (const auto& [D, dim_cases] : by_dim) {
        GeomeanRow row = all;
        row.D = D;
        rows.push_back(geomean_row(row, dim_cases));
      }
    }
    rows.push_back(geomean_row(all, group));
  }
  return rows;
}

// The backends of a file's cases, in order of first appearance.
std::vector<std::string> backends_of(const ResultSet& rs) {
  std::vector<std::string> out;
  for (const CaseResult& r : rs.cases) {
    if (std::find(out.begin(), out.end(), r.c.backend) == out.end()) out.push_back(r.c.backend);
  }
  return out;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

std::string join_or_none(const std::vector<std::string>& v) {
  return v.empty() ? "none" : fmt::format("{}", fmt::join(v, ", "));
}

bool contains_pair(const std::vector<BackendPair>& v, const BackendPair& p) {
  return std::find(v.begin(), v.end(), p) != v.end();
}

// One side of the comparison, as --pair errors describe it.
struct PairSide {
  const char* name;  // "NEW" or "BASE"
  std::string file;
  std::vector<std::string> backends;
};

// "backends in NEW a.json: fa2; in BASE b.json: torch-flash, torch-cudnn": every --pair error
// ends with it, so the fix can be read off the message.
std::string backends_line(const PairSide& next, const PairSide& base) {
  if (next.file == base.file) {
    return fmt::format("backends in {}: {}", next.file, join_or_none(next.backends));
  }
  return fmt::format("backends in {} {}: {}; in {} {}: {}", next.name, next.file,
                     join_or_none(next.backends), base.name, base.file,
                     join_or_none(base.backends));
}

// Throws when `backend`, one side of the --pair `value`, has no case in its side's file.
void require_backend(const std::string& value, const std::string& backend, const PairSide& side,
                     const PairSide& other, const std::string& have) {
  if (contains(side.backends, backend)) return;
  // Found in the other file: the likely mistake is the order of BASE and NEW.
  const std::string hint =
      contains(other.backends, backend)
          ? fmt::format(" (it is in {}: are BASE and NEW swapped?)", other.name)
          : "";
  throw CompareError(fmt::format("--pair \"{}\": no backend \"{}\" in {} {}{}; {}", value, backend,
                                 side.name, side.file, hint, have));
}

// What is wrong with the form of a --pair value; empty when nothing is.
std::string pair_form_error(const std::string& value) {
  const auto eq = value.find('=');
  if (eq == std::string::npos) return "no '=' between NEW_BACKEND and BASE_BACKEND";
  if (value.find('=', eq + 1) != std::string::npos) return "more than one '='";
  if (eq == 0) return "empty NEW_BACKEND";
  if (eq + 1 == value.size()) return "empty BASE_BACKEND";
  return "";
}

// The gates' one rule applied to NEW beyond its matched cases (see Comparison::failures).
// `regressed` holds NEW's (sweep, id) keys of matched cases already counted as regressions.
std::vector<std::string> new_run_failures(const ResultSet& next, const std::string& new_file,
                                          const ResultSet& base, const Comparison& cmp,
                                          const std::set<std::string>& regressed,
                                          const std::set<std::string>& matched_ok) {
  std::vector<std::string> out;
  if (next.cases.empty()) out.push_back(fmt::format("NEW {} has no cases", new_file));
  // NEW's own config tells which cases it should hold and whether errors are allowed. An echo
  // is used only once verified against its recorded sha256 (one edited to allow case errors
  // must not pass); a file written without one (a peer's baseline) is judged without it, and
  // then only "interrupted" and BASE's cases tell that it is incomplete.
  std::optional<Config> config;
  if (next.config_echo.is_object() && !next.config_echo.empty()) {
    std::string why;
    config = config_from_echo(recorded_echo(next, new_file), &why);
    if (!config) throw CompareError("NEW " + why);
  }
  const GateOptions gate{config && config->allow_case_errors, cmp.options.allow_missing};
  for (const GateProblem& p : audit_result_set(next, config ? &*config : nullptr, gate)) {
    if (p.kind == GateProblemKind::incomplete)
      out.push_back(fmt::format("NEW {}: {}", new_file, p.reason));
    if (p.key.empty()) continue;
    const std::string& key = p.key;
    if (regressed.count(key)) continue;  // its verdict says it already
    // The median of a case matched with an ok BASE case is judged (and counted) per case.
    if (p.kind == GateProblemKind::bad_metric && matched_ok.count(key) &&
        p.reason.find("time_ms.median") != std::string::npos)
      continue;
    out.push_back("NEW " + p.reason);
  }
  if (cmp.options.allow_missing) return out;
  if (!cmp.only_base.empty()) {
    out.push_back(fmt::format(
        "{} only in BASE (missing in NEW): {}{}",
        cmp.only_base.size() == 1 ? "1 case" : fmt::format("{} cases", cmp.only_base.size()),
        cmp.only_base.front(),
        cmp.only_base.size() > 1 ? fmt::format(" (and {} more)", cmp.only_base.size() - 1) : ""));
  }
  if (!cmp.by_pair()) {
    const std::vector<std::string> new_backends = backends_of(next);
    for (const std::string& b : backends_of(base)) {
      if (!contains(new_backends, b)) out.push_back(fmt::format("backend {} is missing in NEW", b));
    }
  }
  return out;
}

}  // namespace

double geometric_mean(const std::vector<double>& v) {
  if (v.empty()) return kNaN;
  double sum = 0;
  for (double x : v) sum += std::log(x);
  return std::exp(sum / static_cast<double>(v.size()));
}

void count_verdict(ChangeKind kind, Status base, Status next, bool regression,
                   VerdictCounts& counts) {
  switch (kind) {
    case ChangeKind::same:
      ++counts.same;
      break;
    case ChangeKind::faster:
      ++counts.faster;
      break;
    case ChangeKind::slower:
      ++counts.slower;
      break;
    case ChangeKind::ambiguous:
      ++counts.ambiguous;
      break;
    case ChangeKind::status:
      ++(base == next ? counts.not_ok_both : counts.status);
      if (base == next && (next == Status::error || next == Status::timeout)) ++counts.failing_both;
      break;
  }
  if (regression) ++counts.regressions;
}

std::string_view to_string(VerdictRule r) {
  switch (r) {
    case VerdictRule::threshold:
      return "threshold";
    case VerdictRule::utest:
      return "utest";
    case VerdictRule::status:
      return "status";
  }
  return "?";
}

std::string_view to_string(ChangeKind k) {
  switch (k) {
    case ChangeKind::same:
      return "same";
    case ChangeKind::faster:
      return "faster";
    case ChangeKind::slower:
      return "slower";
    case ChangeKind::ambiguous:
      return "ambiguous";
    case ChangeKind::status:
      return "status";
  }
  return "?";
}

std::vector<BackendPair> parse_backend_pairs(const std::vector<std::string>& values,
                                             const ResultSet& base, const std::string& base_file,
                                             const ResultSet& next, const std::string& new_file) {
  return parse_backend_pairs(values, backends_of(base), base_file, backends_of(next), new_file);
}

std::vector<BackendPair> parse_backend_pairs(const std::vector<std::string>& values,
                                             const std::vector<std::string>& base_backends,
                                             const std::string& base_file,
                                             const std::vector<std::string>& new_backends,
                                             const std::string& new_file) {
  const PairSide new_side{"NEW", new_file, new_backends};
  const PairSide base_side{"BASE", base_file, base_backends};
  const std::string have = backends_line(new_side, base_side);
  std::vector<BackendPair> pairs;
  for (const std::string& value : values) {
    const std::string form = pair_form_error(value);
    if (!form.empty()) {
      throw CompareError(fmt::format(
          "--pair \"{}\": {}; expected NEW_BACKEND=BASE_BACKEND, e.g. --pair fa2=torch-flash; {}",
          value, form, have));
    }
    const auto eq = value.find('=');
    const BackendPair pair{value.substr(0, eq), value.substr(eq + 1)};
    require_backend(value, pair.next, new_side, base_side, have);
    require_backend(value, pair.base, base_side, new_side, have);
    if (!contains_pair(pairs, pair)) pairs.push_back(pair);
  }
  return pairs;
}

ChangeVerdict judge_change(const CaseResult& base, const CaseResult& next, double threshold,
                           double alpha) {
  ChangeVerdict v;
  if (base.status != Status::ok || next.status != Status::ok) {
    v.kind = ChangeKind::status;
    v.rule = VerdictRule::status;
    v.text = fmt::format("{}→{}", to_string(base.status), to_string(next.status));
    v.regression = base.status == Status::ok;
    return v;
  }
  if (!finite_positive(next.time.median)) {
    // NEW claims ok without a time: the gates' rule makes that a failure, never a pass.
    v.kind = ChangeKind::ambiguous;
    v.text = "NEW " + median_text(next.time.median);
    v.regression = true;
    return v;
  }
  if (!finite_positive(base.time.median)) {
    // Only the reference lacks a time: nothing to judge NEW by, and nothing NEW did wrong.
    v.kind = ChangeKind::ambiguous;
    v.text = "ambiguous (BASE " + median_text(base.time.median) + ")";
    return v;
  }
  v.rel_change = next.time.median / base.time.median - 1;
  const auto [blo, bhi] = interval(base.time);
  const auto [nlo, nhi] = interval(next.time);
  v.intervals_overlap = blo <= nhi && nlo <= bhi;
  const std::vector<double> base_samples = finite_samples(base.time);
  const std::vector<double> new_samples = finite_samples(next.time);
  // Enough raw samples on both sides: the rank test replaces the p10-p90 overlap as the judge
  // of significance; the threshold still sets the size of change that matters.
  const bool utest = static_cast<int>(base_samples.size()) >= kUTestMinSamples &&
                     static_cast<int>(new_samples.size()) >= kUTestMinSamples;
  if (utest) {
    v.rule = VerdictRule::utest;
    v.p_value = mann_whitney_u(base_samples, new_samples).p;
  }
  const bool significant = utest ? v.p_value < alpha : !v.intervals_overlap;
  if (std::fabs(v.rel_change) <= threshold) {
    v.kind = ChangeKind::same;
  } else if (!significant) {
    v.kind = ChangeKind::ambiguous;
  } else {
    v.kind = v.rel_change < 0 ? ChangeKind::faster : ChangeKind::slower;
    v.regression = v.kind == ChangeKind::slower;
  }
  v.text = std::string(to_string(v.kind));
  // Samples taken under a throttle reason (a power cap, a thermal slowdown) that the statistics
  // kept measure the GPU's state as much as the code: a change they show is not the change's
  // own, so it is neither faster nor slower, and no regression. (Samples that
  // measure.drop_throttled left out do not count: they are not in the statistics.)
  if (v.kind == ChangeKind::faster || v.kind == ChangeKind::slower) {
    const std::string why = throttled_text(base.time, next.time);
    if (!why.empty()) {
      v.kind = ChangeKind::ambiguous;
      v.regression = false;
      v.throttled = true;
      v.text = "ambiguous (throttled: " + why + ")";
    }
  }
  return v;
}

std::vector<std::string> base_run_failures(const std::string& base_file, std::size_t base_results,
                                           bool base_interrupted, std::size_t compared) {
  std::vector<std::string> out;
  if (base_results == 0) {
    out.push_back(fmt::format("BASE {} has no results: nothing was compared", base_file));
    return out;
  }
  if (base_interrupted) {
    out.push_back(fmt::format("BASE {} is an interrupted run: results it lacks would go uncompared",
                              base_file));
  }
  if (compared == 0) {
    out.push_back(
        fmt::format("nothing was compared: no result of BASE {} that NEW also holds is "
                    "ok with a usable measurement",
                    base_file));
  }
  return out;
}

Comparison compare_results(const ResultSet& base, const std::string& base_file,
                           const ResultSet& next, const std::string& new_file,
                           const CompareOptions& options) {
  Comparison cmp;
  cmp.options = options;
  cmp.base = run_info(base, base_file);
  cmp.next = run_info(next, new_file);

  if (!base.config_sha256.empty() && !next.config_sha256.empty() &&
      base.config_sha256 != next.config_sha256) {
    cmp.warnings.push_back(fmt::format(
        "warning: the runs come from different configs ({} sha256 {}…, {} sha256 {}…); "
        "comparing the cases they share",
        base_file, base.config_sha256.substr(0, 12), new_file, next.config_sha256.substr(0, 12)));
  }
  const std::string base_version = base.tool.is_object() ? base.tool.value("version", "") : "";
  const std::string new_version = next.tool.is_object() ? next.tool.value("version", "") : "";
  if (base_version != new_version && !base_version.empty() && !new_version.empty()) {
    cmp.warnings.push_back(fmt::format("note: fa2bench versions differ ({} {}, {} {})", base_file,
                                       base_version, new_file, new_version));
  }
  // A run under a kernel override measured another launch path than the shipped one: a
  // comparison is still what an A/B run wants, but nobody should read it as the product's.
  const nlohmann::json base_overrides = overrides_of(base.tool);
  const nlohmann::json new_overrides = overrides_of(next.tool);
  if (!base_overrides.empty() || !new_overrides.empty()) {
    cmp.warnings.push_back(fmt::format(
        "note: environment overrides: {} {}, {} {} (tool.overrides; not the shipped launch path)",
        base_file, base_overrides.empty() ? "none" : base_overrides.dump(), new_file,
        new_overrides.empty() ? "none" : new_overrides.dump()));
  }
  if (base.interrupted) cmp.warnings.push_back("warning: " + base_file + " is an interrupted run");
  if (next.interrupted) cmp.warnings.push_back("warning: " + new_file + " is an interrupted run");

  if (options.normalize) {
    for (RunInfo* run : {&cmp.base, &cmp.next}) {
      const auto peak = device_peak_tflops(run->device);
      if (!peak) {
        throw CompareError(
            fmt::format("--normalize: no peak TFLOP/s known for device \"{}\" in {}; add "
                        "\"peak_tflops\" to its device block (built in: A100, A10, L4, L40S, RTX "
                        "3090/4090, H100, H200, B200)",
                        device_name(run->device), run->file));
      }
      run->peak_tflops = *peak;
    }
  }

  const std::vector<const CaseResult*> base_cases = unique_cases(base, base_file, cmp.warnings);
  std::vector<std::string> new_warnings;
  const std::vector<const CaseResult*> new_cases = unique_cases(next, new_file, new_warnings);
  // --pair inside one run gives one file twice: its duplicates are reported once. (Without
  // --pair the output stays what it has always been.)
  const bool one_file = cmp.by_pair() && (&base == &next || base_file == new_file);
  if (!one_file) cmp.warnings.insert(cmp.warnings.end(), new_warnings.begin(), new_warnings.end());

  for (const MatchGroup& g : match_groups(base_cases, new_cases, options.pairs)) {
    const std::vector<std::optional<std::size_t>> partner = match_cases(g);
    std::vector<bool> new_used(g.next.size(), false);
    for (std::size_t i = 0; i < g.base.size(); ++i) {
      if (!partner[i]) {
        cmp.only_base.push_back(g.base[i]->c.id());
        if (g.pair) cmp.only_base_partner.push_back(g.pair->next);
        continue;
      }
      new_used[*partner[i]] = true;
      CaseComparison cc = compare_case(*g.base[i], *g.next[*partner[i]], g.pair, cmp);
      count_case(cc, cmp.counts);
      cmp.cases.push_back(std::move(cc));
    }
    for (std::size_t i = 0; i < g.next.size(); ++i) {
      if (new_used[i]) continue;
      cmp.only_new.push_back(g.next[i]->c.id());
      if (g.pair) cmp.only_new_partner.push_back(g.pair->base);
    }
  }
  cmp.geomean = geomean_rows(cmp.cases, cmp.by_pair());
  std::set<std::string> regressed, matched_ok;
  for (const CaseComparison& cc : cmp.cases) {
    if (cc.regression) regressed.insert(sweep_key(cc.next));
    if (cc.base.status == Status::ok) matched_ok.insert(sweep_key(cc.next));
  }
  cmp.failures = new_run_failures(next, new_file, base, cmp, regressed, matched_ok);
  std::size_t compared = 0;
  for (const CaseComparison& cc : cmp.cases)
    if (cc.base.status == Status::ok && std::isfinite(cc.base.time.median) &&
        cc.base.time.median > 0)
      ++compared;
  for (std::string& f : base_run_failures(base_file, base.cases.size(), base.interrupted, compared))
    cmp.failures.push_back(std::move(f));
  return cmp;
}

}  // namespace fa2b
