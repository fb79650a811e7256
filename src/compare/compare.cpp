// Matching cases of two results files, ratios, verdicts and per-backend geometric means.
#include "compare/compare.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <set>

namespace fa2b {
namespace {

bool finite_positive(double v) {
  return std::isfinite(v) && v > 0;
}

double ratio(double num, double den) {
  return finite_positive(num) && finite_positive(den) ? num / den : kNaN;
}

// The p10-p90 interval of a run; the median alone when the percentiles are missing.
std::pair<double, double> interval(const TimeStats& t) {
  double lo = std::isfinite(t.p10) ? t.p10 : t.median;
  double hi = std::isfinite(t.p90) ? t.p90 : t.median;
  if (lo > hi) std::swap(lo, hi);
  return {lo, hi};
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

// A case's identity within one file: two sweeps of a config may hold the same shape.
std::string sweep_key(const CaseResult& r) {
  return r.c.sweep + "\x1f" + r.c.id();
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

double geomean(const std::vector<double>& v) {
  if (v.empty()) return kNaN;
  double sum = 0;
  for (double x : v) sum += std::log(x);
  return std::exp(sum / static_cast<double>(v.size()));
}

}  // namespace

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

ChangeVerdict judge_change(const CaseResult& base, const CaseResult& next, double threshold) {
  ChangeVerdict v;
  if (base.status != Status::ok || next.status != Status::ok) {
    v.kind = ChangeKind::status;
    v.text = fmt::format("{}→{}", to_string(base.status), to_string(next.status));
    v.regression = base.status == Status::ok;
    return v;
  }
  if (!finite_positive(base.time.median) || !finite_positive(next.time.median)) {
    // Both ok but without a usable median: nothing to judge, and no reason to fail.
    v.kind = ChangeKind::ambiguous;
    v.text = "ambiguous";
    return v;
  }
  v.rel_change = next.time.median / base.time.median - 1;
  const auto [blo, bhi] = interval(base.time);
  const auto [nlo, nhi] = interval(next.time);
  v.intervals_overlap = blo <= nhi && nlo <= bhi;
  if (std::fabs(v.rel_change) <= threshold) {
    v.kind = ChangeKind::same;
  } else if (v.intervals_overlap) {
    v.kind = ChangeKind::ambiguous;
  } else {
    v.kind = v.rel_change < 0 ? ChangeKind::faster : ChangeKind::slower;
    v.regression = v.kind == ChangeKind::slower;
  }
  v.text = std::string(to_string(v.kind));
  return v;
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
  if (base.interrupted) cmp.warnings.push_back("warning: " + base_file + " is an interrupted run");
  if (next.interrupted) cmp.warnings.push_back("warning: " + new_file + " is an interrupted run");

  if (options.normalize) {
    for (RunInfo* run : {&cmp.base, &cmp.next}) {
      const auto peak = device_peak_tflops(run->device);
      if (!peak) {
        throw CompareError(
            fmt::format("--normalize: no peak TFLOP/s known for device \"{}\" in {}; add "
                        "\"peak_tflops\" to its device block (built in: H200, H100 SXM, A100, L4)",
                        device_name(run->device), run->file));
      }
      run->peak_tflops = *peak;
    }
  }

  // Match by id (backend + shape). When an id appears in several sweeps of a file, cases of
  // the same sweep pair up first; what is left pairs by id alone, in file order.
  const std::vector<const CaseResult*> base_cases = unique_cases(base, base_file, cmp.warnings);
  const std::vector<const CaseResult*> new_cases = unique_cases(next, new_file, cmp.warnings);
  std::map<std::string, std::size_t> new_by_sweep_key;
  std::multimap<std::string, std::size_t> new_by_id;
  for (std::size_t i = 0; i < new_cases.size(); ++i) {
    new_by_sweep_key.emplace(sweep_key(*new_cases[i]), i);
    new_by_id.emplace(new_cases[i]->c.id(), i);
  }
  std::vector<bool> new_used(new_cases.size(), false);
  std::vector<std::optional<std::size_t>> partner(base_cases.size());
  for (std::size_t i = 0; i < base_cases.size(); ++i) {
    const auto it = new_by_sweep_key.find(sweep_key(*base_cases[i]));
    if (it != new_by_sweep_key.end()) {
      partner[i] = it->second;
      new_used[it->second] = true;
    }
  }
  for (std::size_t i = 0; i < base_cases.size(); ++i) {
    if (partner[i]) continue;
    const auto [lo, hi] = new_by_id.equal_range(base_cases[i]->c.id());
    for (auto it = lo; it != hi; ++it) {
      if (new_used[it->second]) continue;
      partner[i] = it->second;
      new_used[it->second] = true;
      break;
    }
  }

  std::map<std::string, std::size_t> backend_index;
  std::vector<std::vector<double>> time_ratios, tflops_ratios;
  for (std::size_t i = 0; i < base_cases.size(); ++i) {
    const CaseResult& b = *base_cases[i];
    const std::string id = b.c.id();
    if (!partner[i]) {
      cmp.only_base.push_back(id);
      continue;
    }
    const CaseResult& n = *new_cases[*partner[i]];
    CaseComparison cc;
    cc.id = id;
    cc.backend = b.c.backend;
    cc.base = b;
    cc.next = n;
    const ChangeVerdict v = judge_change(b, n, options.threshold);
    cc.kind = v.kind;
    cc.verdict = v.text;
    cc.regression = v.regression;
    cc.rel_change = v.rel_change;
    cc.intervals_overlap = v.intervals_overlap;
    const bool both_ok = b.status == Status::ok && n.status == Status::ok;
    if (both_ok) {
      cc.time_ratio = ratio(n.time.median, b.time.median);
      cc.tflops_ratio = ratio(n.tflops, b.tflops);
      if (options.normalize) {
        cc.tflops_ratio = ratio(n.tflops / cmp.next.peak_tflops, b.tflops / cmp.base.peak_tflops);
      }
    }
    cc.peak_ratio =
        ratio(static_cast<double>(n.memory.peak_bytes), static_cast<double>(b.memory.peak_bytes));

    switch (cc.kind) {
      case ChangeKind::same:
        ++cmp.counts.same;
        break;
      case ChangeKind::faster:
        ++cmp.counts.faster;
        break;
      case ChangeKind::slower:
        ++cmp.counts.slower;
        break;
      case ChangeKind::ambiguous:
        ++cmp.counts.ambiguous;
        break;
      case ChangeKind::status:
        ++cmp.counts.status;
        break;
    }
    if (cc.regression) ++cmp.counts.regressions;

    const auto [bi, added] = backend_index.emplace(cc.backend, cmp.geomean.size());
    if (added) {
      cmp.geomean.push_back(GeomeanRow{cc.backend, 0, kNaN, kNaN});
      time_ratios.emplace_back();
      tflops_ratios.emplace_back();
    }
    if (finite_positive(cc.time_ratio)) {
      ++cmp.geomean[bi->second].n;
      time_ratios[bi->second].push_back(cc.time_ratio);
    }
    if (finite_positive(cc.tflops_ratio)) tflops_ratios[bi->second].push_back(cc.tflops_ratio);
    cmp.cases.push_back(std::move(cc));
  }
  for (std::size_t i = 0; i < new_cases.size(); ++i) {
    if (!new_used[i]) cmp.only_new.push_back(new_cases[i]->c.id());
  }
  for (std::size_t i = 0; i < cmp.geomean.size(); ++i) {
    cmp.geomean[i].time_ratio = geomean(time_ratios[i]);
    cmp.geomean[i].tflops_ratio = geomean(tflops_ratios[i]);
  }
  return cmp;
}

}  // namespace fa2b
