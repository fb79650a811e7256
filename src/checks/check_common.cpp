// SPDX-License-Identifier: Apache-2.0
#include "checks/check_common.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/axis_table.h"
#include "core/metrics.h"

namespace fa2b::checks {

Verdict start_verdict(const CheckSpec& spec, std::string threshold) {
  Verdict v;
  v.name = spec.name;
  v.kind = spec.kind;
  v.verdict = VerdictKind::error;
  v.threshold = std::move(threshold);
  return v;
}

Verdict error_verdict(Verdict v, std::string detail) {
  v.verdict = VerdictKind::error;
  v.detail = std::move(detail);
  return v;
}

bool known_op(const std::string& op) {
  return op == "<" || op == "<=" || op == ">" || op == ">=" || op == "==";
}

bool compare(double value, const std::string& op, double bound) {
  if (std::isnan(value) || std::isnan(bound)) return false;
  if (op == "<") return value < bound;
  if (op == "<=") return value <= bound;
  if (op == ">") return value > bound;
  if (op == ">=") return value >= bound;
  if (op == "==") {
    if (value == bound) return true;
    return std::fabs(value - bound) <= 1e-9 * std::max(std::fabs(value), std::fabs(bound));
  }
  return false;
}

bool worse(double a, double b, const std::string& op, double bound) {
  if (std::isnan(a)) return !std::isnan(b);
  if (std::isnan(b)) return false;
  if (op == "<" || op == "<=") return a > b;
  if (op == ">" || op == ">=") return a < b;
  return std::fabs(a - bound) > std::fabs(b - bound);
}

std::string num(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return fmt::format("{:.6g}", v);
}

std::string threshold_text(const std::string& op, double bound) {
  return fmt::format("{} {}", op, bound);
}

std::vector<const CaseResult*> select(const CheckSpec& spec,
                                      const std::vector<CaseResult>& results) {
  std::vector<const CaseResult*> out;
  for (const CaseResult& r : results)
    if (spec.select.matches(r.c)) out.push_back(&r);
  return out;
}

std::string describe_selector(const Selector& s) {
  if (s.match.empty()) return "{} (every case)";
  std::string out = "{";
  bool first_axis = true;
  for (const auto& [axis, values] : s.match) {
    if (!first_axis) out += ", ";
    first_axis = false;
    out += axis + ": [";
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (i) out += ", ";
      out += values[i].is_string() ? values[i].get<std::string>() : values[i].dump();
    }
    out += "]";
  }
  return out + "}";
}

std::string no_match_detail(const Selector& s) {
  return "no case matches the selection " + describe_selector(s);
}

bool is_backend(const Case& c, const std::string& name) {
  return c.role == name || c.backend == name;
}

bool same_shape(const Case& a, const Case& b) {
  return same_on_axes(a, b);
}

const CaseResult* find_partner(const Case& c, const std::string& backend,
                               const std::vector<CaseResult>& results) {
  const CaseResult* other_sweep = nullptr;
  for (const CaseResult& r : results) {
    if (&r.c == &c || !is_backend(r.c, backend) || !same_shape(r.c, c)) continue;
    if (r.c.sweep == c.sweep) return &r;
    if (!other_sweep) other_sweep = &r;
  }
  return other_sweep;
}

MetricOrWhy metric_of(const CaseResult& r, const std::string& metric) {
  MetricOrWhy m;
  const auto& names = measured_metric_names();
  if (std::find(names.begin(), names.end(), metric) == names.end()) {
    m.why = fmt::format("unknown metric \"{}\"", metric);
    return m;
  }
  m.value = metric_value(r, metric);
  if (m.value) return m;
  const bool memory_metric =
      metric == "peak_bytes" || metric == "workspace_bytes" || metric == "predicted_bytes";
  if (memory_metric && !r.memory.recorded) {
    m.why = fmt::format("{} has no {} (its results have no memory block)", r.c.id(), metric);
  } else if (metric == "nonfinite" && !r.accuracy.nonfinite_recorded) {
    m.why = fmt::format("{} has no nonfinite (its results have no accuracy.nonfinite)", r.c.id());
  } else if (r.status != Status::ok) {
    m.why = fmt::format("{} is {}", r.c.id(), to_string(r.status));
    if (!r.reason.empty()) m.why += ": " + r.reason;
  } else if (!r.accuracy.checked && (metric == "max_abs_err" || metric == "mean_abs_err" ||
                                     metric == "rel_l2_err" || metric == "nonfinite")) {
    m.why = fmt::format("{} has no {} (not verified)", r.c.id(), metric);
  } else {
    m.why = fmt::format("{} has no {}", r.c.id(), metric);
  }
  return m;
}

bool where_keeps(const CheckSpec& spec, const CheckContext& ctx, std::int64_t predicted) {
  if (spec.where.empty() || !ctx.capacity_bytes) return true;
  const bool fits = predicted <= *ctx.capacity_bytes;
  return spec.where == "fits" ? fits : !fits;
}

std::string where_unjudgeable(const CheckSpec& spec, const CheckContext& ctx) {
  if (spec.where.empty() || ctx.capacity_bytes) return {};
  return fmt::format(
      "\"where\": \"{}\" needs the memory the cases ran with, and these results record no "
      "device.capacity_bytes (written before device-relative checks existed): run the sweep "
      "again",
      spec.where);
}

std::string where_text(const CheckSpec& spec, const CheckContext& ctx) {
  if (spec.where.empty() || !ctx.capacity_bytes) return {};
  const double gib = static_cast<double>(*ctx.capacity_bytes) / (1024.0 * 1024.0 * 1024.0);
  const std::string source = ctx.capacity_source == "memory_budget"   ? "--memory-budget"
                             : ctx.capacity_source == "host_memory"   ? "host memory"
                             : ctx.capacity_source == "device_memory" ? "device memory"
                             : ctx.capacity_source == "device_memory_assumed"
                                 ? "device memory, assumed: the file predates capacity_bytes"
                                 : ctx.capacity_source;
  return fmt::format("{} {} ({} bytes, {})", spec.where == "fits" ? "fits" : "exceeds",
                     gib >= 10 ? fmt::format("{:.0f} GiB", gib) : fmt::format("{:.3g} GiB", gib),
                     *ctx.capacity_bytes, source);
}

bool did_not_run(Status s) {
  return s == Status::oom || s == Status::unsupported;
}

namespace {

// "9.0" as (9, 0); (-1, -1) when it does not read.
std::pair<int, int> cc_pair(const std::string& cc) {
  int major = -1, minor = -1;
  if (std::sscanf(cc.c_str(), "%d.%d", &major, &minor) != 2) return {-1, -1};
  return {major, minor};
}

// Why the check is about other results than these; empty when it applies.
std::string out_of_scope(const CheckSpec& spec, const CheckContext& ctx) {
  if (!spec.target.empty() && !ctx.target.empty() && spec.target != ctx.target) {
    return fmt::format("the check is about the {} target and these results ran on the {} target",
                       spec.target, ctx.target);
  }
  if (spec.min_cc.empty() || ctx.target != "cuda" || ctx.cc.empty()) return {};
  const auto have = cc_pair(ctx.cc);
  if (have.first < 0 || have >= cc_pair(spec.min_cc)) return {};
  return fmt::format(
      "the check is about compute capability {} or newer and these results ran on a {} device",
      spec.min_cc, ctx.cc);
}

}  // namespace

std::optional<Verdict> scope_skip(const CheckSpec& spec, const CheckContext& ctx) {
  const std::string why = out_of_scope(spec, ctx);
  if (why.empty()) return std::nullopt;
  const std::string scope = spec.target.empty() || spec.target == ctx.target
                                ? "cc >= " + spec.min_cc
                                : "target " + spec.target;
  return skipped_verdict(start_verdict(spec, scope), why);
}

Verdict skipped_verdict(Verdict v, const std::string& why) {
  v.verdict = VerdictKind::skipped;
  v.detail = "n/a on this device: " + why;
  return v;
}

std::vector<const CaseResult*> select_where(const CheckSpec& spec, const CheckContext& ctx,
                                            const std::vector<CaseResult>& results,
                                            std::size_t& outside) {
  outside = 0;
  std::vector<const CaseResult*> out;
  for (const CaseResult* r : select(spec, results)) {
    if (where_keeps(spec, ctx, r->memory.predicted_bytes)) {
      out.push_back(r);
    } else {
      ++outside;
    }
  }
  return out;
}

std::vector<const CaseResult*> judged_cases(const CheckSpec& spec, const CheckContext& ctx,
                                            const std::vector<CaseResult>& results, Verdict& v) {
  if (select(spec, results).empty()) {
    v = error_verdict(v, no_match_detail(spec.select));
    return {};
  }
  if (const std::string why = where_unjudgeable(spec, ctx); !why.empty()) {
    v = error_verdict(v, why);
    return {};
  }
  std::size_t outside = 0;
  std::vector<const CaseResult*> selected = select_where(spec, ctx, results, outside);
  if (selected.empty())
    v = skipped_verdict(
        v, fmt::format("none of the {} selected cases {}", outside, where_text(spec, ctx)));
  return selected;
}

std::string plural(std::size_t n, const std::string& word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

std::string and_more(std::size_t n) {
  return n == 0 ? std::string() : fmt::format(" (and {} more)", n);
}

void BoundTally::problem(std::string why) {
  if (problems++ == 0) first_problem = std::move(why);
}

void BoundTally::add(double value, const CheckSpec& spec, const std::string& at) {
  if (!compare(value, spec.op, spec.value)) ++failing;
  if (!any || worse(value, worst, spec.op, spec.value)) {
    any = true;
    worst = value;
    worst_at = at;
  }
}

void BoundTally::add_ratio(const MetricOrWhy& n, const MetricOrWhy& d, const CheckSpec& spec,
                           const std::string& den_id, const std::string& at) {
  if (!n.value || !d.value) return problem(!n.value ? n.why : d.why);
  if (*d.value == 0) return problem(fmt::format("{} of {} is 0", spec.metric, den_id));
  add(*n.value / *d.value, spec, at);
}

Verdict threshold_verdict(Verdict v, const CheckSpec& spec, const BoundTally& t,
                          std::size_t selected) {
  if (t.problems > 0) {
    return error_verdict(v,
                         fmt::format("{}{}; {} of {} selected cases have no {}", t.first_problem,
                                     and_more(t.problems - 1), t.problems, selected, spec.metric));
  }
  v.measured = t.worst;
  const bool pass = t.failing == 0;
  v.verdict = pass ? VerdictKind::pass : VerdictKind::fail;
  v.detail = fmt::format("worst {} = {} at {}", spec.metric, num(t.worst), t.worst_at);
  v.detail += pass ? " (" + plural(selected, "case") + ")"
                   : fmt::format(" ({} of {} cases outside {})", t.failing, selected, v.threshold);
  return v;
}

Verdict ratio_verdict(Verdict v, const CheckSpec& spec, const BoundTally& t, std::size_t pairs) {
  if (pairs == 0) {
    return error_verdict(v, fmt::format("no {} case in the selection {}", spec.numerator,
                                        describe_selector(spec.select)));
  }
  if (t.problems > 0) {
    return error_verdict(v, fmt::format("{}{}; {} of {} pairs have no ratio", t.first_problem,
                                        and_more(t.problems - 1), t.problems, pairs));
  }
  v.measured = t.worst;
  const bool pass = t.failing == 0;
  v.verdict = pass ? VerdictKind::pass : VerdictKind::fail;
  v.detail = fmt::format("worst {} {} / {} = {} at {}", spec.metric, spec.numerator,
                         spec.denominator, num(t.worst), t.worst_at);
  v.detail += pass ? " (" + plural(pairs, "pair") + ")"
                   : fmt::format(" ({} of {} pairs outside {})", t.failing, pairs, v.threshold);
  return v;
}

}  // namespace fa2b::checks
